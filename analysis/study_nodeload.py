#!/usr/bin/python3
"""Seed 002's non-dedicated clusters (scripts/study-nodeload.sh): per application, problem and
local load, the co-allocation penalty and the slowdown the load causes, from the study's records.

  /usr/bin/python3 analysis/study_nodeload.py --records RUNS.jsonl [--records ...] --output DIR

Writes DIR/nodeload.csv and DIR/summary.txt (what it prints), each atomically.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis import cli  # noqa: E402
from mcb_analysis.study_nodeload import analyse  # noqa: E402

if __name__ == "__main__":
    cli.run_records_to_folder("study_nodeload.py", __doc__, analyse)
