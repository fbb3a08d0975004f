#!/usr/bin/python3
"""Seed 001's comparison of allocation methods from a scripts/study-moldable.sh folder.

    /usr/bin/python3 analysis/moldable_figures.py STUDY_DIR [--output DIR]

Writes moldable-<workload>-<system>.png, moldable.csv (every point of every valid sweep),
winners.csv and moldable.md (the table, the winner per load, each sweep's VALID/INVALID verdict)
into --output (default STUDY_DIR). See mcb_analysis/moldable_figures.py.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas or matplotlib

from mcb_analysis import cli  # noqa: E402
from mcb_analysis import moldable_figures as mf  # noqa: E402

PROG = "moldable_figures.py"


def main(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("study", metavar="STUDY_DIR", help="folder written by scripts/study-moldable.sh")
    p.add_argument("--output", metavar="DIR", help="folder for the figures (default STUDY_DIR)")
    a = p.parse_args(argv)
    out = a.output or a.study
    cli.check_output_dir("--output", out)
    frame, verdicts = mf.load(a.study)
    for w, s, m, v in verdicts:
        print(f"{PROG}: {w}/{s}/{m}: {v}")
    os.makedirs(out, exist_ok=True)
    paths = mf.draw(frame, out)
    cli.write_atomically(os.path.join(out, "moldable.csv"), frame.to_csv(index=False))
    cli.write_atomically(os.path.join(out, "winners.csv"), mf.winners(frame).to_csv(index=False))
    cli.write_atomically(os.path.join(out, "moldable.md"), mf.markdown(frame, verdicts) + "\n")
    print(f"{PROG}: wrote {', '.join(os.path.basename(x) for x in paths)}, moldable.csv, "
          f"winners.csv, moldable.md into {out}")
    return 0


if __name__ == "__main__":
    cli.run(PROG, main)
