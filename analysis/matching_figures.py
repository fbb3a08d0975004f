#!/usr/bin/python3
"""Seed 002's Figures 5-8 (link-aware matching) from an mcb-match-study folder.

    /usr/bin/python3 analysis/matching_figures.py STUDY_DIR [--output DIR]

Writes fig5.png .. fig8.png, figures.csv (the numbers of every curve point) and figures.md into
--output (default STUDY_DIR). See mcb_analysis/matching_figures.py for what each figure shows.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas or matplotlib

from mcb_analysis import cli  # noqa: E402
from mcb_analysis import matching_figures as mf  # noqa: E402

PROG = "matching_figures.py"


def main(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("study", metavar="STUDY_DIR", help="folder written by mcb-match-study")
    p.add_argument("--output", metavar="DIR", help="folder for the figures (default STUDY_DIR)")
    a = p.parse_args(argv)
    out = a.output or a.study
    cli.check_output_dir("--output", out)
    frame, doc = mf.load(a.study)
    table = mf.summarise(frame)
    os.makedirs(out, exist_ok=True)
    paths = mf.draw(table, out)
    cli.write_atomically(os.path.join(out, "figures.csv"), table.to_csv(index=False))
    cli.write_atomically(os.path.join(out, "figures.md"), mf.markdown(table, doc) + "\n")
    print(f"{PROG}: wrote {', '.join(os.path.basename(x) for x in paths)}, figures.csv, "
          f"figures.md into {out}")
    return 0


if __name__ == "__main__":
    cli.run(PROG, main)
