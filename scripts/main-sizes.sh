# Sourced by scripts/main-job.sh: the job sizes the main job measures, fitted to the host.
# main_sizes SIZE CORES sets p_sizes (the service-time runs' processes), p_appendix_procs (the
# appendix study's process grid), p_appendix_clusters (its cluster counts) and e_sizes
# (Ensflow's "ranks:components" entries).
# At the demo size no run puts more ranks on the host than it has cores: the DAS-2 gave every
# process its own processor, and with two ranks to a core a run's time is mostly its ranks
# waiting for the core (README, "The main job's regime"). The appendix keeps the paper's
# process grid 4x1 where 4 cores allow it, else the largest of 2x1 and 1x1 that fits, on the
# cluster counts 1, 2, 4 up to its processes. The tiny size keeps every size: it checks the
# pipeline, including the oversubscription warnings, and measures nothing.
main_sizes() {  # main_sizes SIZE CORES
  local size="$1" cores="$2" p e kept=()
  p_sizes="1 2 4"
  e_sizes=("1:1" "2:1 2" "4:1 2 4")
  local appendix=4
  if [ "$size" = demo ]; then
    p_sizes="$(for p in $p_sizes; do if [ "$p" -le "$cores" ]; then printf '%s ' "$p"; fi; done)"
    p_sizes="${p_sizes% }"
    for e in "${e_sizes[@]}"; do if [ "${e%%:*}" -le "$cores" ]; then kept+=("$e"); fi; done
    e_sizes=("${kept[@]}")
    appendix="${p_sizes##* }"
  fi
  p_appendix_procs="${appendix}x1"
  p_appendix_clusters="$(for c in 1 2 4; do if [ "$c" -le "$appendix" ]; then printf '%s ' "$c"; fi; done)"
  p_appendix_clusters="${p_appendix_clusters% }"
}
