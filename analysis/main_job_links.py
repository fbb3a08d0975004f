#!/usr/bin/python3
"""The main job's link scaling (scripts/main-job.sh; mcb_analysis.link_scale says how), one line
on stdout:

  main_job_links.py first --target P --max-scale M T1 T2
      "LATENCY BANDWIDTH S1": the link of the second probe, from the reference probe's fastest
      seconds per iteration on 1 (T1) and 2 (T2) clusters
  main_job_links.py grid --target P --grid G T1 T2 S1 U1 U2
      "GRID FLOOR_SHARE": the grid to measure at, from both probes at grid G (the same G when
      the link's share is well above the emulation's floor), and the floor as a share of T1
  main_job_links.py final --target P --max-scale M T1 T2 S1 U1 U2
      "LATENCY BANDWIDTH SCALE T1 W_REF PROBED_PENALTY": the link every run gets, from both
      probes (U1, U2: the second probe's times)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis import cli  # noqa: E402
from mcb_analysis import link_scale  # noqa: E402

PROG = "main_job_links.py"


def _positive(name):
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise cli.BadInput(f"{name}: '{text}' is not a number")
        if not value > 0:
            raise cli.BadInput(f"{name}: '{text}' must be positive")
        return value
    return parse


def _whole(name):
    def parse(text):
        if not text.isdigit() or int(text) == 0:
            raise cli.BadInput(f"{name}: '{text}' is not a positive whole number")
        return int(text)
    return parse


def main(argv):
    p = cli.parser(PROG, __doc__)
    sub = p.add_subparsers(dest="command", required=True)
    first = sub.add_parser("first", help="the second probe's link")
    grid = sub.add_parser("grid", help="the grid to measure at")
    final = sub.add_parser("final", help="the link every run gets")
    for s in (first, grid, final):
        s.add_argument("--target", type=_positive("--target"), required=True,
                       help="the penalty 2 clusters should have over 1 (e.g. 0.18)")
        if s is grid:
            s.add_argument("--grid", type=_whole("--grid"), required=True,
                           help="the grid the probes ran at")
        else:
            s.add_argument("--max-scale", type=_positive("--max-scale"), required=True,
                           help="the largest scale of the reference link")
        names = ("T1", "T2") if s is first else ("T1", "T2", "S1", "U1", "U2")
        for name in names:
            s.add_argument(name.lower(), metavar=name, type=_positive(name))
    a = p.parse_args(argv)
    if a.command == "first":
        s1 = link_scale.first_scale(a.target, a.t1, a.t2, a.max_scale)
        print(*link_scale.link(float(s1)), s1)
    elif a.command == "grid":
        print(link_scale.grid_line(a.target, a.t1, a.t2, a.s1, a.u1, a.u2, a.grid))
    else:
        print(link_scale.final_line(a.target, a.t1, a.t2, a.s1, a.u1, a.u2, a.max_scale))
    return 0


if __name__ == "__main__":
    cli.run(PROG, main)
