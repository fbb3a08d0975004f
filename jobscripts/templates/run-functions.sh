# mcb_run KEY LIMIT LINGER COMMAND...
# Runs one measurement with its output in runs/KEY.log. Ends it after LIMIT seconds; ends a
# launcher that is still there LINGER seconds after the run's record (runs/KEY.jsonl) is
# complete (seen with srun when tasks have ended but the step does not return). Writes
# runs/KEY.status: "exit=<code> seconds=<s> ended=exit|timeout|lingered", read by
# `mcb-campaign collect`, which records a failure for every run that has no record.
mcb_run() {
  local key=$1 limit=$2 linger=$3
  shift 3
  local record="runs/$key.jsonl" status="runs/$key.status" started=$SECONDS
  rm -f -- "$status" "runs/$key.lingered"
  # timeout puts the launcher in a process group of its own, so it can be ended as a whole.
  timeout --signal=TERM --kill-after=10 "$limit" "$@" >"runs/$key.log" 2>&1 &
  local pid=$!
  mcb_watch_linger "$pid" "$record" "$linger" "runs/$key.lingered" &
  local watcher=$!
  wait "$pid"
  local code=$?
  kill "$watcher" 2>/dev/null
  wait "$watcher" 2>/dev/null
  local ended=exit
  if [ -e "runs/$key.lingered" ]; then
    ended=lingered
  elif [ "$code" -eq 124 ] || [ $((SECONDS - started)) -ge "$limit" ]; then
    ended=timeout
  fi
  printf 'exit=%s seconds=%s ended=%s\n' "$code" "$((SECONDS - started))" "$ended" >"$status.tmp"
  mv -f -- "$status.tmp" "$status"
}

# mcb_watch_linger PID RECORD LINGER MARK: once RECORD ends with a whole line, gives PID LINGER
# more seconds, then ends its process group and leaves MARK behind.
mcb_watch_linger() {
  local pid=$1 record=$2 linger=$3 mark=$4
  while kill -0 "$pid" 2>/dev/null; do
    if [ -s "$record" ] && [ -z "$(tail -c 1 -- "$record")" ]; then
      sleep "$linger"
      if kill -0 "$pid" 2>/dev/null; then
        : >"$mark"
        kill -TERM -- "-$pid" 2>/dev/null
        sleep 5
        kill -KILL -- "-$pid" 2>/dev/null
      fi
      return 0
    fi
    sleep 1
  done
}

# mcb_write_map FILE COUNT LABEL [COUNT LABEL]...: a cluster map file, one label per rank.
mcb_write_map() {
  local file=$1
  shift
  : >"$file"
  while [ $# -ge 2 ]; do
    local i
    for ((i = 0; i < $1; i++)); do printf '%s\n' "$2" >>"$file"; done
    shift 2
  done
}
