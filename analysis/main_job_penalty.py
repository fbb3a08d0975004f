#!/usr/bin/python3
"""The main job's co-allocation penalty section (Markdown on stdout): the measured Poisson
runtimes of the simulated sizes beside the paper's Table 4, and the host's load during the runs.

  /usr/bin/python3 analysis/main_job_penalty.py --runtimes TABLES/runtimes.csv \\
      --problem 1024x1024 --statistic min --cores 2 [--records FILE.jsonl ...]
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas

from mcb_analysis import cli  # noqa: E402
from mcb_analysis.main_job import STATISTICS, penalty_section  # noqa: E402

PROG = "main_job_penalty.py"


def main(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("--runtimes", required=True, metavar="CSV", help="mcb-calibrate's runtimes.csv")
    p.add_argument("--app", default="poisson", help="application (default poisson)")
    p.add_argument("--problem", required=True, help="the simulated problem, e.g. 1024x1024")
    p.add_argument("--statistic", choices=STATISTICS, default="min",
                   help="the runtime column the simulations use (default min)")
    p.add_argument("--cores", type=int, required=True, help="cores of the host")
    p.add_argument("--records", action="append", default=[], metavar="FILE",
                   help="run records (JSON Lines) for the load note; repeatable; missing files "
                        "are skipped")
    args = p.parse_args(argv)
    if args.cores < 1:
        raise cli.BadInput(f"--cores: '{args.cores}' is not a positive number")
    records = [f for f in args.records if os.path.exists(f)]
    print(penalty_section(args.runtimes, args.app, args.problem, args.statistic, args.cores,
                          records))
    return 0


if __name__ == "__main__":
    cli.run(PROG, main)
