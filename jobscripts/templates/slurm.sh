#!/bin/bash
# Slurm jobscript written by mcb-campaign: campaign @CAMPAIGN@, runs @KEYS@.
# mcb-campaign submits it from the campaign folder (sbatch @SCRIPT@); so can you.
@DIRECTIVES@

# Each task's cluster: the partition of the heterogeneous-job component its rank belongs to.
# srun numbers the tasks of component 0 first, then those of component 1, and so on; each
# component's task count and partition are in SLURM_NTASKS_HET_GROUP_<k> and
# SLURM_JOB_PARTITION_HET_GROUP_<k>. Exported as MCB_CLUSTER for --cluster-map env:MCB_CLUSTER.
mcb_task_label='
k=0
first=0
label=
while [ "$k" -lt "${SLURM_HET_SIZE:-0}" ]; do
  tasks_var="SLURM_NTASKS_HET_GROUP_$k"
  partition_var="SLURM_JOB_PARTITION_HET_GROUP_$k"
  tasks=${!tasks_var:-0}
  if [ "$SLURM_PROCID" -lt $((first + tasks)) ]; then
    label=${!partition_var:-cluster$k}
    break
  fi
  first=$((first + tasks))
  k=$((k + 1))
done
[ -n "$label" ] || label=${SLURM_JOB_PARTITION:-cluster0}
export MCB_CLUSTER="$label"
"$@"
code=$?
# Leave this task'"'"'s exit code for mcb_run, which then knows the run is over even when srun
# does not return.
[ -n "$MCB_RUN_KEY" ] && printf "%s\n" "$code" >"runs/$MCB_RUN_KEY.task.$SLURM_PROCID"
exit "$code"'

@RUN_SECTION@
