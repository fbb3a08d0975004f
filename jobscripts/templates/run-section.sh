# The part every jobscript shares: the run functions, then the runs themselves, started from the
# campaign folder with the spec's environment and the executor's setup file.

# mcb_run KEY LIMIT LINGER TASKS COMMAND...
# Runs one measurement with its output in runs/KEY.log. Ends it after LIMIT seconds; ends a
# launcher that is still there LINGER seconds after the run is over (seen with srun when every
# task has ended but the step does not return): over means its record (runs/KEY.jsonl) is
# complete, or all TASKS tasks have left their exit code in runs/KEY.task.<rank>, or one left a
# non-zero code (tasks started through the Slurm jobscript's task wrapper do; a run that fails
# before writing a record is over that way).
# A launch whose tasks died on a signal before any record was written is made once more, its
# first log kept as runs/KEY.log.1: Open MPI 4.1 started by srun on a step of several nodes at
# times crashes inside MPI_Init (a peer whose PMIx fence failed sends before this rank can
# receive), a failure of the launch and not of the run.
# Writes runs/KEY.status: "exit=<code> seconds=<s> ended=exit|timeout|lingered launches=<n>"
# (for a lingering launcher, the tasks' exit code), read by `mcb-campaign collect`, which
# records a failure for every run that has no record.
mcb_run() {
  local key=$1 limit=$2 linger=$3 tasks=$4
  shift 4
  local record="runs/$key.jsonl" status="runs/$key.status" started=$SECONDS launches=0
  local code ended
  rm -f -- "$status" "runs/$key.log.1"
  local left=$limit
  while :; do
    launches=$((launches + 1))
    mcb_launch "$key" "$left" "$linger" "$tasks" "$@"
    # The second launch has what is left of the run's time limit, so the job's walltime holds.
    left=$((limit - (SECONDS - started)))
    if [ "$launches" -ge 2 ] || [ "$ended" = timeout ] || [ -s "$record" ] ||
       [ "$code" -le 128 ] || [ "$code" -ge 160 ] || [ "$left" -le 0 ]; then
      break
    fi
    mv -f -- "runs/$key.log" "runs/$key.log.1"
  done
  printf 'exit=%s seconds=%s ended=%s launches=%s\n' "$code" "$((SECONDS - started))" "$ended" \
    "$launches" >"$status.tmp"
  mv -f -- "$status.tmp" "$status"
}

# mcb_launch KEY LIMIT LINGER TASKS COMMAND...: one launch of mcb_run's; sets code and ended.
mcb_launch() {
  local key=$1 limit=$2 linger=$3 tasks=$4
  shift 4
  local record="runs/$key.jsonl" started=$SECONDS
  rm -f -- "runs/$key.lingered" "runs/$key.task."*
  # timeout puts the launcher in a process group of its own, so it can be ended as a whole.
  MCB_RUN_KEY=$key timeout --signal=TERM --kill-after=10 "$limit" "$@" >"runs/$key.log" 2>&1 &
  local pid=$!
  mcb_watch_linger "$pid" "$record" "$linger" "runs/$key.lingered" "runs/$key.task." "$tasks" &
  local watcher=$!
  wait "$pid"
  code=$?
  kill "$watcher" 2>/dev/null
  wait "$watcher" 2>/dev/null
  ended=exit
  if [ -e "runs/$key.lingered" ]; then
    ended=lingered
    code=$(mcb_task_code "runs/$key.task." "$code")
  elif [ "$code" -eq 124 ] || [ $((SECONDS - started)) -ge "$limit" ]; then
    ended=timeout
  fi
}

# mcb_watch_linger PID RECORD LINGER MARK TASK_PREFIX TASKS: once RECORD ends with a whole line,
# or TASKS files TASK_PREFIX<rank> exist, or one of them holds a non-zero code, gives PID LINGER
# more seconds, then ends its process group and leaves MARK behind.
mcb_watch_linger() {
  local pid=$1 record=$2 linger=$3 mark=$4 prefix=$5 tasks=$6
  local done_tasks failed_tasks
  while kill -0 "$pid" 2>/dev/null; do
    done_tasks=$(compgen -G "$prefix*" | wc -l)
    # A task that failed ends the run too: its fellows may have been killed without a word.
    failed_tasks=$( (cat -- "$prefix"* 2>/dev/null || true) | grep -cv '^0$')
    if { [ -s "$record" ] && [ -z "$(tail -c 1 -- "$record")" ]; } ||
       { [ "$tasks" -gt 0 ] && { [ "$done_tasks" -ge "$tasks" ] || [ "$failed_tasks" -gt 0 ]; }; }; then
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

# mcb_task_code TASK_PREFIX DEFAULT: the first non-zero exit code the tasks left, 0 when all
# ended well, DEFAULT when none left one.
mcb_task_code() {
  local prefix=$1 code=$2 file found=0 value
  for file in "$prefix"*; do
    [ -e "$file" ] || continue
    value=$(<"$file")
    if [ "$found" -eq 0 ] || { [ "$code" = 0 ] && [ "$value" != 0 ]; }; then code=$value; fi
    found=1
  done
  printf '%s\n' "$code"
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

mcb_folder=@FOLDER@
cd -- "$mcb_folder" || exit 1
@ENVIRONMENT@
@SETUP@
@RUNS@
