# A private Grid Engine cell in one folder (Debian 12's packages, SGE 8.1.9), sourced by rig.sh:
# sge_qmaster and one sge_execd (this host, SLOTS slots) on their own ports, classic spooling, and
# a job clean-up script. From the checked recipe ../shared/gridengine-on-one-host.md (one exec
# host; virtual hosts need network namespaces, which the rig does not use).
# shellcheck shell=bash

readonly kSgeBin=/usr/lib/gridengine

check_gridengine_tools() {
  [ "$(id -u)" -eq 0 ] || skip "needs root (sge_execd starts jobs as the submitting user)"
  local tool
  for tool in sge_qmaster sge_execd qconf qsub qstat spoolinit spooldefaults gethostname; do
    [ -x "$kSgeBin/$tool" ] || skip "'$kSgeBin/$tool' is not installed (gridengine-master, gridengine-exec, gridengine-client)"
  done
  [ -x /usr/share/gridengine/util/arch ] || skip "gridengine-common is not installed"
}

# The env.sh of the cell in D, for users and for the commands below.
sge_env() {
  local d=$1 port=$2
  cat <<EOF
# source this file to use the Grid Engine cell in $d
export SGE_ROOT='$d' SGE_CELL=default SGE_QMASTER_PORT=$port SGE_EXECD_PORT=$((port + 1))
export PATH=$kSgeBin:\$PATH
EOF
}

# Runs a Grid Engine command against the cell in D (in a subshell: the caller's environment
# keeps no SGE_ROOT, so nothing the caller starts looks like one of this cell's jobs).
sge_do() {
  local d=$1
  shift
  (. "$d/env.sh" && "$@")
}

# sge_start D PORT SLOTS: qmaster on PORT, execd on PORT+1; returns when the queue is usable.
sge_start() {
  local d=$1 port=$2 slots=$3 c=$1/default/common arch host ip alias
  arch=$(/usr/share/gridengine/util/arch)
  for sub in bin lib utilbin; do mkdir -p "$d/$sub"; ln -sfn "$kSgeBin" "$d/$sub/$arch"; done
  ln -sfn /usr/share/gridengine/util "$d/util"
  mkdir -p "$c" "$d/spool/qmaster/job_scripts" "$d/spool/execd" "$d/tmpl" "$d/tmp"
  sge_env "$d" "$port" >"$d/env.sh"
  # SGE compares the client's name with the one its address resolves back to; here "vm" ->
  # 127.0.0.1 -> "localhost", so without the alias every client is refused.
  host=$("$kSgeBin/gethostname" -name)
  ip=$(getent ahostsv4 "$host" | awk 'NR==1{print $1}')
  [ -n "$ip" ] || skip "host name '$host' does not resolve"
  alias=$(getent hosts "$ip" | awk '{print $2}')
  : >"$c/host_aliases"
  if [ -n "$alias" ] && [ "$alias" != "$host" ]; then echo "$host $alias" >"$c/host_aliases"; fi
  echo "$host" >"$c/act_qmaster"
  cat >"$c/bootstrap" <<EOF
admin_user              none
default_domain          none
ignore_fqdn             false
spooling_method         classic
spooling_lib            libspoolc
spooling_params         $c;$d/spool/qmaster
binary_path             /usr/sbin
qmaster_spool_dir       $d/spool/qmaster
security_mode           none
listener_threads        2
worker_threads          2
scheduler_threads       1
jvm_threads             0
EOF
  # Debian's default configuration, changed: root may run jobs (set before the execd starts),
  # private spool, no mail, accounting written at once (qacct answers when a job is gone).
  sed -e "s|^execd_spool_dir .*|execd_spool_dir        $d/spool/execd|" \
    -e 's|^min_uid .*|min_uid                0|' -e 's|^min_gid .*|min_gid                0|' \
    -e 's|^mailer .*|mailer                 /bin/true|' \
    -e 's|^execd_params .*|execd_params           ENABLE_ADDGRP_KILL=TRUE|' \
    -e 's|^load_report_time .*|load_report_time       00:00:05|' \
    -e 's|^reporting_params .*|reporting_params       accounting=true reporting=false flush_time=00:00:01 joblog=false sharelog=00:00:00 accounting_flush_time=00:00:00|' \
    /usr/share/gridengine/default-configuration >"$d/tmpl/global"
  # The queue's epilog and terminate_method: SGE does not kill root's processes, so this kills
  # every process whose environment holds this job's JOB_ID and this SGE_ROOT.
  cat >"$d/kill-job.sh" <<'EOF'
#!/bin/sh
[ -n "$JOB_ID" ] && [ -n "$SGE_ROOT" ] || exit 0
pids=$(grep -lzx "JOB_ID=$JOB_ID" /proc/[0-9]*/environ 2>/dev/null | xargs -r grep -lzx "SGE_ROOT=$SGE_ROOT" 2>/dev/null | cut -d/ -f3)
for p in $pids; do [ "$p" = "$$" ] || [ "$p" = "$PPID" ] || kill -KILL "$p" 2>/dev/null; done
exit 0
EOF
  chmod 755 "$d/kill-job.sh"
  (
    export LD_LIBRARY_PATH=$kSgeBin
    . "$d/env.sh"
    spoolinit classic libspoolc "$c;$d/spool/qmaster" init
    spooldefaults configuration "$d/tmpl/global"
    spooldefaults complexes /usr/share/gridengine/util/resources/centry
    spooldefaults usersets /usr/share/gridengine/util/resources/usersets
    spooldefaults managers root
  ) >>"$d/spool/init.log" 2>&1 || skip "cannot initialise the spool: $(tail -n 1 "$d/spool/init.log")"
  sge_do "$d" sge_qmaster </dev/null >>"$d/spool/qmaster.err" 2>&1 ||
    skip "sge_qmaster does not start: $(tail -n 1 "$d/spool/qmaster.err")"
  local i
  for i in $(seq 1 100); do sge_do "$d" qconf -sh >/dev/null 2>&1 && break; sleep 0.1; done
  sge_do "$d" qconf -sh >/dev/null 2>&1 || skip "sge_qmaster does not answer; see $d/spool/qmaster/messages"
  sge_configure "$d" "$host" "$slots"
}

# Scheduler, parallel environment, execd and queue of the running qmaster in D.
sge_configure() {
  local d=$1 host=$2 slots=$3 i ok=0
  # Schedule every second and right after a submit or a job end (default: every 15 s).
  sge_do "$d" qconf -ssconf | sed -e 's|^schedule_interval .*|schedule_interval                 0:0:1|' \
    -e 's|^flush_submit_sec .*|flush_submit_sec                  1|' \
    -e 's|^flush_finish_sec .*|flush_finish_sec                  1|' >"$d/tmpl/sched"
  sge_do "$d" qconf -Msconf "$d/tmpl/sched" >/dev/null
  sge_do "$d" qconf -as "$host" >/dev/null 2>&1 || true
  cat >"$d/tmpl/pe-mpi" <<EOF
pe_name            mpi
slots              9999
user_lists         NONE
xuser_lists        NONE
start_proc_args    NONE
stop_proc_args     NONE
allocation_rule    \$fill_up
control_slaves     TRUE
job_is_first_task  FALSE
urgency_slots      min
accounting_summary FALSE
qsort_args         NONE
EOF
  sge_do "$d" qconf -Ap "$d/tmpl/pe-mpi" >/dev/null
  # An execd on an admin host registers itself as exec host.
  sge_do "$d" sge_execd </dev/null >>"$d/spool/execd.err" 2>&1 ||
    skip "sge_execd does not start: $(tail -n 1 "$d/spool/execd.err")"
  for i in $(seq 1 150); do [ "$(sge_do "$d" qconf -sel 2>/dev/null | wc -l)" -ge 1 ] && break; sleep 0.1; done
  sge_queue "$d" "$host" "$slots" >"$d/tmpl/all.q"
  sge_do "$d" qconf -Aq "$d/tmpl/all.q" >/dev/null
  # Ready when the queue instance shows no state letters (no "au").
  for i in $(seq 1 300); do
    ok=$(sge_do "$d" qstat -f 2>/dev/null | awk '$1 ~ /^all\.q@/ && NF==5' | wc -l)
    [ "$ok" -ge 1 ] && break
    sleep 0.1
  done
  [ "$ok" -ge 1 ] || skip "the queue all.q@$host did not become ready; see $d/spool"
}

# The queue all.q: SLOTS slots on HOST, the clean-up script (jobs ask to be rerunnable themselves).
sge_queue() {
  local d=$1 host=$2 slots=$3 limit
  cat <<EOF
qname                 all.q
hostlist              $host
seq_no                0
load_thresholds       NONE
suspend_thresholds    NONE
nsuspend              1
suspend_interval      00:05:00
priority              0
min_cpu_interval      00:05:00
processors            UNDEFINED
qtype                 BATCH INTERACTIVE
ckpt_list             NONE
pe_list               mpi
rerun                 FALSE
slots                 $slots
tmpdir                $d/tmp
shell                 /bin/sh
prolog                NONE
epilog                $d/kill-job.sh
shell_start_mode      posix_compliant
starter_method        NONE
suspend_method        NONE
resume_method         NONE
terminate_method      $d/kill-job.sh
notify                00:00:60
owner_list            NONE
user_lists            NONE
xuser_lists           NONE
subordinate_list      NONE
complex_values        NONE
projects              NONE
xprojects             NONE
calendar              NONE
initial_state         default
EOF
  for limit in s_rt h_rt s_cpu h_cpu s_fsize h_fsize s_data h_data s_stack h_stack s_core h_core \
    s_rss h_rss s_vmem h_vmem; do
    printf '%-21s INFINITY\n' "$limit"
  done
}

# The pids in the qmaster's and the execd's pid files (which end without a newline).
sge_daemon_pids() {
  local f
  for f in "$1"/spool/qmaster/qmaster.pid "$1"/spool/execd/*/execd.pid; do pid_of "$f"; echo; done
}

# Stops the cell in D: the execd with its jobs, then the qmaster, then any job process left.
# sge_cancel_all D: deletes every job of the cell in D and waits (up to 20 s) until none is
# left; 1 when some are.
sge_cancel_all() {
  local d=$1 i
  sge_do "$d" timeout 10 qdel -f -u '*' >/dev/null 2>&1 || true
  for i in $(seq 1 80); do
    [ -z "$(sge_do "$d" timeout 10 qstat -u '*' 2>/dev/null || true)" ] && return 0
    sleep 0.25
  done
  return 1
}

sge_stop() {
  local d=$1 pids alive i
  [ -f "$d/env.sh" ] || return 0
  pids=$(sge_daemon_pids "$d")
  sge_do "$d" timeout 10 qconf -kej all >/dev/null 2>&1 || true
  for i in $(seq 1 50); do
    # shellcheck disable=SC2046
    alive=$(alive_pids $(for f in "$d"/spool/execd/*/execd.pid; do pid_of "$f"; echo; done))
    [ -z "$alive" ] && break
    sleep 0.1
  done
  # The qmaster's controlled shutdown (qconf -km) takes ~9 s; the cell is thrown away, so it
  # is killed (the recipe's fast stop).
  # shellcheck disable=SC2086
  alive=$(alive_pids $pids)
  # shellcheck disable=SC2086
  [ -n "$alive" ] && kill -KILL $alive 2>/dev/null || true
  for i in $(seq 1 30); do
    # shellcheck disable=SC2086
    [ -z "$(alive_pids $pids)" ] && break
    sleep 0.1
  done
  # Job processes: their environment holds this SGE_ROOT and a JOB_ID (a shell that merely
  # sourced env.sh has no JOB_ID).
  alive=$(grep -lzxF "SGE_ROOT=$d" /proc/[0-9]*/environ 2>/dev/null | xargs -r grep -lz '^JOB_ID=' 2>/dev/null | cut -d/ -f3 | grep -vx "$$" || true)
  # shellcheck disable=SC2086
  [ -n "$alive" ] && kill -KILL $alive 2>/dev/null || true
  rm -f "$d"/spool/qmaster/qmaster.pid
  return 0
}
