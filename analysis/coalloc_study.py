#!/usr/bin/python3
"""Issue 29's validation study: real co-allocated runs against mcb-redundant's replay.

    /usr/bin/python3 analysis/coalloc_study.py requests CAMPAIGN_DIR --requested S --output FILE
    /usr/bin/python3 analysis/coalloc_study.py table STUDY_DIR [--output DIR]

`requests` writes the co-allocated requests of a campaign folder (its records.jsonl) as the SWF
file `mcb-redundant --requests` replays. `table` writes table.csv, coalloc-study.md and
coalloc-study.png (real against simulated co-allocation time, held idle processor-seconds,
response time and the coordinator's overhead per configuration, and seed 004's claim that
duplication improves performance by more than 15%) into --output (default STUDY_DIR), and
prints the table. scripts/study-coalloc.sh runs both; see mcb_analysis/coalloc_study.py.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas or matplotlib

from mcb_analysis import cli  # noqa: E402
from mcb_analysis import coalloc_study as cs  # noqa: E402

PROG = "coalloc_study.py"


def requests(a):
    if not a.output:
        raise cli.BadInput("requests: --output: missing")
    if not a.requested or a.requested <= 0:
        raise cli.BadInput(f"requests: --requested: '{a.requested}' must be positive seconds")
    _, runs, _ = cs.runs_of(os.path.join(a.folder, "records.jsonl"))
    cli.write_atomically(a.output, cs.requests_swf(runs, a.requested))
    print(f"{PROG}: {len(runs)} requests into {a.output}")
    return 0


def table(a):
    out = a.output or a.folder
    cli.check_output_dir("--output", out)
    configs = cs.load(a.folder)
    t = cs.table(configs)
    lines = cs.verdict_lines(cs.claims(configs))
    os.makedirs(out, exist_ok=True)
    paths = cs.draw(configs, out)
    cli.write_atomically(os.path.join(out, "table.csv"), t.csv())
    text = f"## {t.title}\n\n{t.markdown()}\nSeed 004's claim:\n\n" + \
        "".join(f"- {x}\n" for x in lines)
    cli.write_atomically(os.path.join(out, "coalloc-study.md"), text)
    print(t.markdown())
    for x in lines:
        print(f"{PROG}: {x}")
    print(f"{PROG}: wrote table.csv, coalloc-study.md, "
          f"{', '.join(os.path.basename(p) for p in paths)} into {out}")
    return 0


def main(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("command", choices=("requests", "table"))
    p.add_argument("folder", metavar="DIR", help="campaign folder (requests) or study (table)")
    p.add_argument("--requested", type=float, help="requests: the pilots' time limit (s)")
    p.add_argument("--output", help="requests: the SWF file; table: folder (default DIR)")
    a = p.parse_args(argv)
    return requests(a) if a.command == "requests" else table(a)


if __name__ == "__main__":
    cli.run(PROG, main)
