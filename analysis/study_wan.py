#!/usr/bin/python3
"""The DAS-2 paper's measurement study reduced to this machine (scripts/study-wan.sh): Table 3 /
Figure 4, Table 10 and Figure 10 analogues and the three claims, from the study's run records.

  /usr/bin/python3 analysis/study_wan.py --records RUNS.jsonl [--records ...] --output DIR

Writes DIR/table3.csv, table10.csv, fig10.csv and summary.txt (what it prints), each atomically.
Records are taken in the order given; Figure 10 draws the first run of its configuration.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis import cli  # noqa: E402
from mcb_analysis.study_wan import analyse  # noqa: E402

if __name__ == "__main__":
    cli.run_records_to_folder("study_wan.py", __doc__, analyse)
