#!/usr/bin/python3
"""The report: puts the tables and figures of analysis steps (measurement.py, simulation.py)
together with the configuration and provenance of every number.

  /usr/bin/python3 analysis/report.py --part DIR [--part DIR ...] --output DIR \\
      [--title TEXT] [--intro FILE.md] [--summary ID ...] [--attach LABEL=FILE ...] [--root DIR]

Writes DIR/report.md (figures linked), DIR/report.html (self-contained: figures and the files
they link embedded, a file past 2 MB named instead) and DIR/report.json (every input file the
report's numbers come from, with its sha256). Both pages are rendered from one Markdown text
(the HTML by Debian's python3-markdown); paths inside the results folder (--root, default the
folder holding DIR) are written relative to it, paths inside the suite's source as {mcb}/....
--summary puts items (the saturation tables) at the top, under the introduction.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas or matplotlib

from mcb_analysis import cli  # noqa: E402
from mcb_analysis.cli import write_atomically  # noqa: E402
from mcb_analysis.reporting import Attachment, Part, Report  # noqa: E402

PROG = "report.py"


def parse(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("--part", action="append", required=True, metavar="DIR",
                   help="output folder of an analysis step (with manifest.json); repeatable, "
                        "in the order the report shows them")
    p.add_argument("--output", required=True, metavar="DIR", help="folder for the report")
    p.add_argument("--title", default="mcb report", help="the report's title")
    p.add_argument("--intro", metavar="FILE", help="Markdown shown under the title")
    p.add_argument("--root", metavar="DIR",
                   help="the results folder: paths inside it are shown relative to it "
                        "(default: the folder holding --output)")
    p.add_argument("--summary", action="append", default=[], metavar="ID",
                   help="an item (such as a saturation table) shown at the top, under the "
                        "introduction, instead of in its part; repeatable")
    p.add_argument("--attach", action="append", default=[], metavar="LABEL=FILE",
                   help="a configuration file shown verbatim with its sha256 (campaign spec, "
                        "job mix); repeatable")
    return p.parse_args(argv)


def main(argv):
    args = parse(argv)
    cli.check_output_dir("--output", args.output)
    parts = [Part(d) for d in args.part]
    intro = ""
    if args.intro:
        if not os.path.isfile(args.intro):
            raise cli.BadInput(f"--intro: '{args.intro}' is not a file")
        with open(args.intro, encoding="utf-8") as f:
            intro = f.read()
    attachments = [Attachment(a) for a in args.attach]
    out = os.path.abspath(args.output)
    root = args.root or os.path.dirname(out)
    if not os.path.isdir(root):
        raise cli.BadInput(f"--root: '{root}' is not a folder")
    report = Report(args.title, parts, intro, attachments, root, args.summary)
    md = report.markdown(out)
    page = report.html(out)
    doc = {"schema": "mcb-report/1", "title": args.title, "date": report.date,
           "host": report.host, "revision": report.revision, "parts": report.inputs(),
           "attachments": [{"label": a.label, **a.source.to_json()} for a in attachments],
           "command_line": [PROG] + list(argv)}
    os.makedirs(out, exist_ok=True)
    write_atomically(os.path.join(out, "report.md"), md)
    write_atomically(os.path.join(out, "report.html"), page)
    write_atomically(os.path.join(out, "report.json"), json.dumps(doc, indent=1) + "\n")
    items = sum(len(p.manifest["items"]) for p in parts)
    print(f"{PROG}: {items} tables and figures from {len(parts)} part(s): "
          f"{os.path.join(args.output, 'report.html')} and report.md")
    return 0


if __name__ == "__main__":
    cli.run(PROG, main)
