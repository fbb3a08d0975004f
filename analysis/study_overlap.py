#!/usr/bin/python3
"""Seed 000's expectation for overlapping applications (scripts/study-overlap.sh): each halo
mode's multicluster penalty from the study's run records, and whether overlap lowers it.

  /usr/bin/python3 analysis/study_overlap.py --records RUNS.jsonl [--records ...] --output DIR

Writes DIR/overlap.csv and DIR/summary.txt (what it prints), each atomically.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis import cli  # noqa: E402
from mcb_analysis.study_overlap import analyse  # noqa: E402

if __name__ == "__main__":
    cli.run_records_to_folder("study_overlap.py", __doc__, analyse)
