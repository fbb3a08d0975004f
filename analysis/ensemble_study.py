#!/usr/bin/python3
"""Issue 30's study: the ensemble on the rig (mcb-ensemble) against mcb-batchgrid's replay.

    /usr/bin/python3 analysis/ensemble_study.py valid STUDY_DIR
    /usr/bin/python3 analysis/ensemble_study.py fit STUDY_DIR --output FILE
    /usr/bin/python3 analysis/ensemble_study.py replay STUDY_DIR CONFIG --output DIR
    /usr/bin/python3 analysis/ensemble_study.py table STUDY_DIR [--output DIR]

`valid` prints the configurations whose run is VALID (its last segment's verdict), one a
line, and every run's verdict on stderr; only those feed the fit, the replays and the table.
`fit` writes a + b/P (seconds per model day, least squares over both runs' done segments), the
restart file's size and the mean measured transfer as JSON. `replay` writes a configuration's
background jobs as they ran on the ensemble's clock (one SWF per system) and the mcb-batchgrid
run arguments (DIR/args, one a line). `table` writes table.csv, ensemble-study.md and
ensemble-study.png (real against simulated throughput, pilot wait, resource availability rate
and remaps; whether multiple queues beat the single largest) into --output (default
STUDY_DIR) and prints the table. scripts/study-ensemble.sh runs all four; see
mcb_analysis/ensemble_study.py.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas or matplotlib

from mcb_analysis import cli  # noqa: E402
from mcb_analysis import ensemble_study as es  # noqa: E402

PROG = "ensemble_study.py"


def valid(a):
    for config in es.CONFIGS:
        r = es.run_of(os.path.join(a.folder, config))
        print(f"{PROG}: {config}: {r['verdict']}" + (f": {r['reason']}" if r["reason"] else ""),
              file=sys.stderr)
        if r["verdict"] == "VALID":
            print(config)
    return 0


def fit(a):
    if not a.output:
        raise cli.BadInput("fit: --output: missing")
    f = es.fit(a.folder)
    cli.write_atomically(a.output, json.dumps(f, indent=2) + "\n")
    print(f"{PROG}: a = {f['a']:.3f} s, b = {f['b']:.3f} s per model day over "
          f"{f['points']} segments; restart file {f['restart_bytes']} bytes")
    return 0


def replay(a):
    if not a.output or a.config not in es.CONFIGS:
        raise cli.BadInput(f"replay: needs CONFIG ({' or '.join(es.CONFIGS)}) and --output")
    args = es.replay(a.folder, a.config, a.output)
    print(f"{PROG}: mcb-batchgrid run {' '.join(args)}")
    return 0


def table(a):
    out = a.output or a.folder
    cli.check_output_dir("--output", out)
    configs = es.load(a.folder)
    t = es.table(configs)
    lines = es.verdict_lines(configs)
    os.makedirs(out, exist_ok=True)
    paths = es.draw(configs, out)
    cli.write_atomically(os.path.join(out, "table.csv"), t.csv())
    text = f"## {t.title}\n\n{t.markdown()}\nSeed 003's conclusion (multiple queues beat the " \
        "single largest):\n\n" + "".join(f"- {x}\n" for x in lines)
    cli.write_atomically(os.path.join(out, "ensemble-study.md"), text)
    print(t.markdown())
    for x in lines:
        print(f"{PROG}: {x}")
    print(f"{PROG}: wrote table.csv, ensemble-study.md, "
          f"{', '.join(os.path.basename(p) for p in paths)} into {out}")
    return 0


def main(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("command", choices=("valid", "fit", "replay", "table"))
    p.add_argument("folder", metavar="DIR", help="the study folder")
    p.add_argument("config", nargs="?", help="replay: multi or single")
    p.add_argument("--output", help="fit: the JSON file; replay: folder; table: folder")
    a = p.parse_args(argv)
    return {"valid": valid, "fit": fit, "replay": replay, "table": table}[a.command](a)


if __name__ == "__main__":
    cli.run(PROG, main)
