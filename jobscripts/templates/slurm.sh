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
exec "$@"'

@RUN_FUNCTIONS@
mcb_folder=@FOLDER@
cd -- "$mcb_folder" || exit 1
@ENVIRONMENT@
@SETUP@
@RUNS@
