#!/usr/bin/env bash
# Writes an smpirun host file that places RANKS ranks on the clusters named (zone prefixes of a
# platform in platforms/smpi/ or from scripts/smpi-platform.sh) the way the harness maps ranks
# to clusters: equal consecutive blocks, cluster i holding ranks [i*R/C, (i+1)*R/C). That is
# Poisson's vertical strips (the process grid is column-major) and the blocks of mcb-links and
# mcb-ensflow (harness/cluster_map.hpp). PER_NODE ranks share a node (default 1).
#   scripts/smpi-hostfile.sh CLUSTER[,CLUSTER...] RANKS [PER_NODE] > hosts
#   scripts/smpi-hostfile.sh fs0,fs1 16 > das2-2x8.hosts     # Globus-2, 16 processes
set -euo pipefail
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: smpi-hostfile.sh CLUSTER[,CLUSTER...] RANKS [PER_NODE]" >&2; exit 2; }
IFS=, read -r -a clusters <<< "$1"
ranks="$2" per_node="${3:-1}"
[[ "$ranks" =~ ^[1-9][0-9]*$ ]] || { echo "smpi-hostfile.sh: RANKS: '$ranks' is not a positive whole number" >&2; exit 2; }
[[ "$per_node" =~ ^[1-9][0-9]*$ ]] || { echo "smpi-hostfile.sh: PER_NODE: '$per_node' is not a positive whole number" >&2; exit 2; }
count=${#clusters[@]}
(( count > 0 && ranks % count == 0 )) || { echo "smpi-hostfile.sh: RANKS: $ranks ranks do not split into $count equal blocks" >&2; exit 2; }
per=$((ranks / count))
for ((r = 0; r < ranks; r++)); do
  local_rank=$((r % per))
  echo "${clusters[r / per]}-$((local_rank / per_node))"
done
