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

PROG = "study_overlap.py"


def main(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("--records", action="append", required=True, metavar="FILE",
                   help="run records (JSON Lines); repeatable")
    p.add_argument("--output", required=True, metavar="DIR", help="folder of the tables")
    args = p.parse_args(argv)
    cli.check_output_dir("--output", args.output)
    analyse(args.records, args.output)
    return 0


if __name__ == "__main__":
    cli.run(PROG, main)
