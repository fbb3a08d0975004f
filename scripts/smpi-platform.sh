#!/usr/bin/env bash
# Writes the SimGrid platform equivalent to the on-host link emulation of --wan-latency and
# --wan-bandwidth (harness/link_clock.hpp; docs/smpi.md, "The emulation's platform").
#   scripts/smpi-platform.sh CLUSTERS HOSTS_PER_CLUSTER LATENCY BANDWIDTH PLATFORM.xml
# LATENCY and BANDWIDTH in SimGrid's units, as the options take them: 1ms, 100Mbps (megabits
# per second; SimGrid's "Mbps" is the suite's "Mbit/s").
#   scripts/smpi-platform.sh 2 2 1ms 100Mbps emu.xml
# Clusters are zones c0, c1, ... with hosts c0-0, c0-1, ...; scripts/smpi-hostfile.sh places
# the ranks on them.
# Every pair of clusters gets its own full-duplex link (each direction its own bandwidth), as the
# emulation's LinkTable::uniform; inside a cluster, the ranks share the host's memory in the
# emulation, modelled as links of MCB_SMPI_LAN_LATENCY (default 0s) and MCB_SMPI_LAN_BANDWIDTH
# (default 10GBps): the inter-cluster path is then exactly LATENCY + N / BANDWIDTH.
set -euo pipefail
usage() { echo "usage: smpi-platform.sh CLUSTERS HOSTS_PER_CLUSTER LATENCY BANDWIDTH PLATFORM.xml" >&2; exit 2; }
[ $# -eq 5 ] || usage
clusters="$1" hosts="$2" latency="$3" bandwidth="$4" out="$5"
whole() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "smpi-platform.sh: $1: '$2' is not a positive whole number" >&2; exit 2; }; }
whole CLUSTERS "$clusters"; whole HOSTS_PER_CLUSTER "$hosts"
[[ "$latency" =~ ^[0-9.]+(e-?[0-9]+)?(s|ms|us|ns)$ ]] || { echo "smpi-platform.sh: LATENCY: '$latency' is not a duration such as 1ms" >&2; exit 2; }
[[ "$bandwidth" =~ ^[0-9.]+(e[0-9]+)?([kMG]?(Bps|bps))$ ]] || { echo "smpi-platform.sh: BANDWIDTH: '$bandwidth' is not a rate such as 100Mbps" >&2; exit 2; }
lan_lat="${MCB_SMPI_LAN_LATENCY:-0s}" lan_bw="${MCB_SMPI_LAN_BANDWIDTH:-10GBps}"
name="emu-${bandwidth}-${latency}"
tmp="$(mktemp "$out.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
{
  echo "<?xml version='1.0'?>"
  echo "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">"
  echo "<!-- Written by scripts/smpi-platform.sh $clusters $hosts $latency $bandwidth: the on-host emulation's links (docs/smpi.md). -->"
  echo "<platform version=\"4.1\">"
  echo "  <!-- The root zone's name is the platform's name: records say system smpi-$name. -->"
  echo "  <zone id=\"$name\" routing=\"Full\">"
  for ((c = 0; c < clusters; c++)); do
    # One host per rank slot; speed 1Gf with --cfg=smpi/host-speed:1Gf keeps each burst of
    # computation as long as it took on this host, as in the emulation.
    echo "    <cluster id=\"c$c\" prefix=\"c$c-\" suffix=\"\" radical=\"0-$((hosts - 1))\" speed=\"1Gf\""
    echo "             bw=\"$lan_bw\" lat=\"$lan_lat\" loopback_bw=\"$lan_bw\" loopback_lat=\"$lan_lat\"/>"
  done
  for ((a = 0; a < clusters; a++)); do
    for ((b = a + 1; b < clusters; b++)); do
      echo "    <link id=\"wan-$a-$b\" bandwidth=\"$bandwidth\" latency=\"$latency\" sharing_policy=\"SPLITDUPLEX\"/>"
    done
  done
  for ((a = 0; a < clusters; a++)); do
    for ((b = 0; b < clusters; b++)); do
      [ "$a" = "$b" ] && continue
      lo=$((a < b ? a : b)) hi=$((a < b ? b : a)) dir=$([ "$a" -lt "$b" ] && echo UP || echo DOWN)
      echo "    <zoneRoute src=\"c$a\" dst=\"c$b\" gw_src=\"c$a-c${a}_router\" gw_dst=\"c$b-c${b}_router\" symmetrical=\"NO\">"
      echo "      <link_ctn id=\"wan-$lo-$hi\" direction=\"$dir\"/>"
      echo "    </zoneRoute>"
    done
  done
  echo "  </zone>"
  echo "</platform>"
} > "$tmp"
mv "$tmp" "$out"
trap - EXIT
