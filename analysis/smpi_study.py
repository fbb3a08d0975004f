#!/usr/bin/python3
"""The DAS-2 paper's Poisson Tables 2, 3, 9 and 10 measured on a simulated platform, each cell
beside the paper's with the relative error, the multicluster/single-cluster ratio by grid size,
and a summary (smpi-study.md) beside the tables (Markdown + CSV + manifest.json for report.py).

  /usr/bin/python3 analysis/smpi_study.py --records RUNS.jsonl [--records ...] \\
      --system PBS=smpi-das2-myrinet --system Globus=smpi-das2-tcp \\
      [--reference ../shared/reference/das2-study] --output DIR
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas

from mcb_analysis import cli  # noqa: E402
from mcb_analysis import smpi_study as study  # noqa: E402
from mcb_analysis.inputs import Source  # noqa: E402
from mcb_analysis.output import Outputs  # noqa: E402

PROG = "smpi_study.py"
DEFAULT_REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                 "shared", "reference", "das2-study")


def summary(tables, verdicts, measured, labels):
    lines = [f"Records: {sum(len(c.wall) for c in measured.cells.values())} valid Poisson runs "
             f"in {len(measured.cells)} configurations ({measured.ignored} records not counted: "
             f"not valid, not Poisson, or another system). Columns: PBS = "
             f"`{labels['PBS']}` on 1 cluster, Globus-C = `{labels['Globus']}` on C clusters.",
             "", "| table | cells compared | median absolute relative error |", "|---|---:|---:|"]
    for table_id, n, median in study.error_summary(tables):
        shown = "-" if median is None else f"{median * 100:.0f}%"
        lines.append(f"| {table_id} | {n} | {shown} |")
    lines += ["", "Does the multicluster/single-cluster ratio (4x4, Globus-C / PBS) fall with "
              "grid size?", ""]
    for c, (n, rises) in verdicts.items():
        if n < 2:
            lines.append(f"- Globus-{c}: fewer than two grid sizes simulated")
        elif not rises:
            lines.append(f"- Globus-{c}: yes, at every step over {n} grid sizes")
        else:
            steps = ", ".join(f"{a} to {b}" for a, b in rises)
            lines.append(f"- Globus-{c}: no, it rises from {steps} ({n} grid sizes); it falls "
                         f"at every step from grid {rises[-1][1]} up")
    return "\n".join(lines) + "\n"


def main(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("--records", action="append", required=True, metavar="FILE",
                   help="run records (JSON Lines); repeatable")
    p.add_argument("--system", action="append", default=[], metavar="NAME=LABEL",
                   help="PBS=LABEL and Globus=LABEL: the config.system of each network")
    p.add_argument("--reference", default=DEFAULT_REFERENCE, metavar="DIR",
                   help="the paper's tables (default ../shared/reference/das2-study)")
    p.add_argument("--tables", metavar="CSV",
                   help="mcb-calibrate's runtimes.csv of the full-count runs (Table 4)")
    p.add_argument("--tables-scale", type=float, default=1.0, metavar="F",
                   help="--tables times are for F times the paper's iterations (default 1)")
    p.add_argument("--full-system", metavar="LABEL",
                   help="config.system of the runs of all the paper's iterations (scaling check)")
    p.add_argument("--sweep", action="append", default=[], metavar="NAME=DIR",
                   help="an mcb-sim sweep of Poisson jobs; repeatable (saturation table)")
    p.add_argument("--output", required=True, metavar="DIR", help="folder for the outputs")
    p.add_argument("--title", default="The DAS-2 paper's Poisson tables on a simulated DAS-2",
                   help="title of this part in the report")
    args = p.parse_args(argv)
    cli.check_output_dir("--output", args.output)
    labels = study.labels_from(args.system)
    if not os.path.isdir(args.reference):
        raise cli.BadInput(f"--reference: '{args.reference}' is not a folder")
    ref = study.Reference(args.reference)
    measured = study.Measured(args.records, labels)
    if not measured.cells:
        raise cli.BadInput(f"--records: no valid Poisson runs of system {labels['PBS']} or "
                           f"{labels['Globus']} in {', '.join(args.records)}")
    ratio_table, verdicts = study.ratios(ref, measured)
    tables = [study.table2(ref, measured), study.table3(ref, measured), ratio_table,
              study.table9(ref, measured), study.table10(ref, measured)]
    if args.tables:
        if not args.tables_scale > 0:
            raise cli.BadInput(f"--tables-scale: '{args.tables_scale}' is not positive")
        tables.append(study.service_times(args.reference, args.tables, args.tables_scale)[0])
    if args.full_system:
        full = study.Measured(args.records, {"PBS": args.full_system,
                                             "Globus": args.full_system})
        tables.append(study.full_against_scaled(full, measured))
    if args.sweep:
        tables.append(study.saturation(args.sweep))
    sources = ref.sources + [Source(path) for path in args.records]
    out = Outputs("smpi-study", args.title, f"{labels['PBS']} / {labels['Globus']}", sources,
                  {"systems": labels})
    for t in tables:
        t.source = "records: " + ", ".join(args.records)
        out.add(t)
    text = summary(tables, verdicts, measured, labels)
    ratio_table.notes.append(text)
    code = out.write_and_list(PROG, args.output, argv)
    cli.write_atomically(os.path.join(args.output, "smpi-study.md"),
                         f"# {args.title}\n\n{text}\n" +
                         "\n".join(f"**{t.title}**\n\n{t.markdown()}" for t in tables))
    return code


if __name__ == "__main__":
    cli.run(PROG, main)
