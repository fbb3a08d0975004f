#!/usr/bin/python3
"""Issue 35's map of the co-allocation penalty (scripts/study-synth-map.sh): mcb-synth's penalty
over the ratio of computation to communication and the number of clusters, drawn as a heat map
with Poisson and Ensflow placed on it, and where co-allocation stays within 1.25.

  /usr/bin/python3 analysis/study_synth_map.py --records RUNS.jsonl [--records ...] --output DIR

Writes DIR/penalty.csv, DIR/apps.csv, DIR/map.png and DIR/summary.txt (what it prints), each
atomically.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis import cli  # noqa: E402
from mcb_analysis.study_synth_map import analyse  # noqa: E402

if __name__ == "__main__":
    cli.run_records_to_folder("study_synth_map.py", __doc__, analyse)
