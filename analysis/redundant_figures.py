#!/usr/bin/python3
"""Seed 004's redundant requests from a scripts/study-redundant.sh folder.

    /usr/bin/python3 analysis/redundant_figures.py STUDY_DIR [--output DIR]

Writes fig1-fcfs.png, fig1-cons.png (global queuing time normalized to Ideal Min by
duplication factor and ranker), fig2-local.png (local jobs' min/avg/max across sites),
fig5-hetero.png (reduction by one duplicate, heterogeneous against homogeneous),
fig3-coalloc.png (co-allocation time under stop-and-wait normalized to Ideal Min),
fig4-hibernation.png (reduction of all jobs' queuing time by hibernation and by 2 duplicates) and
redundant.md (tables and the paper's observations, held or failed, with 95% intervals) into
--output (default STUDY_DIR). See mcb_analysis/redundant_figures.py and
mcb_analysis/redundant_coalloc.py.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas or matplotlib

from mcb_analysis import cli  # noqa: E402
from mcb_analysis import redundant_coalloc as rc  # noqa: E402
from mcb_analysis import redundant_figures as rf  # noqa: E402

PROG = "redundant_figures.py"


def main(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("study", metavar="STUDY_DIR", help="folder written by scripts/study-redundant.sh")
    p.add_argument("--output", metavar="DIR", help="folder for the figures (default STUDY_DIR)")
    a = p.parse_args(argv)
    out = a.output or a.study
    cli.check_output_dir("--output", out)
    data = rf.load(a.study)
    co = rc.load(a.study)
    obs = rf.observations(data) + rc.observations(co)
    os.makedirs(out, exist_ok=True)
    paths = rf.draw(data, out) + rc.draw(co, out)
    text = rf.markdown(data, obs) + "\n" + "\n".join(rc.markdown(co)) + "\n"
    cli.write_atomically(os.path.join(out, "redundant.md"), text)
    for oid, text, held, ev in obs:
        print(f"{PROG}: {oid}: {'held' if held else 'FAILED'}: {text}: {ev}")
    print(f"{PROG}: wrote {', '.join(os.path.basename(x) for x in paths)}, redundant.md into {out}")
    return 0


if __name__ == "__main__":
    cli.run(PROG, main)
