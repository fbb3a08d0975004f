#!/usr/bin/python3
"""The introduction of the main job's report (mcb_analysis.main_job_intro), written atomically:

  main_job_intro.py --output intro.md NAME=VALUE ...

Every fact the introduction names is given once as NAME=VALUE (the names: FACTS in
mcb_analysis/main_job_intro.py); a missing, repeated or unknown name ends with exit code 2.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis import cli  # noqa: E402
from mcb_analysis.main_job_intro import FACTS, intro_markdown  # noqa: E402

PROG = "main_job_intro.py"


def facts_from(pairs):
    facts = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise cli.BadInput(f"'{pair}' is not NAME=VALUE")
        if name not in FACTS:
            raise cli.BadInput(f"'{name}' is not a fact of the introduction")
        if name in facts:
            raise cli.BadInput(f"'{name}' is given twice")
        facts[name] = value
    missing = [name for name in FACTS if name not in facts]
    if missing:
        raise cli.BadInput(f"missing fact(s): {', '.join(missing)}")
    return facts


def main(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("--output", required=True, metavar="FILE", help="the introduction (Markdown)")
    p.add_argument("facts", nargs="*", metavar="NAME=VALUE")
    args = p.parse_args(argv)
    cli.write_atomically(args.output, intro_markdown(facts_from(args.facts)))
    return 0


if __name__ == "__main__":
    cli.run(PROG, main)
