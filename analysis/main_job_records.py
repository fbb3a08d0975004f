#!/usr/bin/python3
"""Figures the main job (scripts/main-job.sh) reads from run records, one line on stdout, the
records read through the analysis package's one reader (mcb_analysis.inputs.read_records):

  main_job_records.py summary FILE.jsonl ...   "RECORDS NOT_VALID APP:SYSTEM,...;APP:..."
      (missing files are skipped: a campaign that made no run has none)
  main_job_records.py probe FILE.jsonl         "T1 T2", the fastest seconds per iteration on
      1 and on 2 clusters (the link probe's runs); exit code 2 when either is missing
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas

from mcb_analysis import cli  # noqa: E402
from mcb_analysis.main_job import fastest_iteration, record_summary  # noqa: E402

PROG = "main_job_records.py"


def main(argv):
    p = cli.parser(PROG, __doc__)
    sub = p.add_subparsers(dest="command", required=True)
    summary = sub.add_parser("summary", help="record count, not valid, systems by app")
    summary.add_argument("records", nargs="+", metavar="FILE")
    probe = sub.add_parser("probe", help="fastest time per iteration on 1 and 2 clusters")
    probe.add_argument("records", metavar="FILE")
    args = p.parse_args(argv)
    if args.command == "summary":
        count, not_valid, systems = record_summary(args.records)
        print(count, not_valid,
              ";".join(f"{app}:{','.join(labels)}" for app, labels in systems.items()))
        return 0
    best = fastest_iteration(args.records)
    missing = [str(c) for c in (1, 2) if c not in best]
    if missing:
        raise cli.BadInput(f"{args.records}: no Poisson run on {' or '.join(missing)} "
                           "cluster(s) with a time per iteration")
    print(f"{best[1]:.6g} {best[2]:.6g}")
    return 0


if __name__ == "__main__":
    cli.run(PROG, main)
