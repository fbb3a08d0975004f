"""The report: the items of one or more analysis steps (their manifest.json) put together with
the configuration and provenance of every number, as Markdown (figures linked) and as one
self-contained HTML file (figures embedded)."""

import base64
import html
import json
import os
import re

from .cli import BadInput
from .inputs import Source, read_json
from .output import MANIFEST_SCHEMA, suite_revision, utc_now


class Part:
    """One analysis step's output folder."""

    def __init__(self, directory):
        if not os.path.isdir(directory):
            raise BadInput(f"--part: '{directory}' is not a folder")
        path = os.path.join(directory, "manifest.json")
        self.manifest, self.source = read_json(path, required=["schema", "items", "inputs"])
        if self.manifest["schema"] != MANIFEST_SCHEMA:
            raise BadInput(f"{path}: schema '{self.manifest['schema']}' is not "
                           f"{MANIFEST_SCHEMA}")
        self.dir = os.path.abspath(directory)
        for item in self.manifest["items"]:
            for kind, name in (item.get("files") or {}).items():
                f = os.path.join(self.dir, name)
                if not os.path.exists(f):
                    raise BadInput(f"{path}: item {item.get('id')}: {kind} file {name} is missing")
        self.title = self.manifest.get("title") or os.path.basename(self.dir)

    def file(self, item, kind):
        return os.path.join(self.dir, item["files"][kind])


class Attachment:
    def __init__(self, spec):
        label, _, path = spec.partition("=")
        if not path:
            label, path = os.path.basename(spec), spec
        if not os.path.isfile(path):
            raise BadInput(f"--attach: '{path}' is not a file")
        self.label = label
        self.source = Source(path)
        with open(path, encoding="utf-8", errors="replace") as f:
            self.text = f.read()


def _anchor(text):
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


# The suite's source folder (this package is analysis/mcb_analysis in it): the report writes
# paths inside it as {mcb}/..., so no path of the machine that made it is left in the page (braces,
# not <mcb>, which a browser takes for a tag and hides).
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE_MARK = "{mcb}"


def _strip(prefix, replacement, text):
    prefix = prefix.rstrip(os.sep)
    return re.sub(re.escape(prefix) + r"(?:/|(?=[\s`'\",;)\]]|$))", replacement, text)


def _relative(root, text):
    """Every absolute path inside @root in @text written relative to it (the results folder
    moves as a whole), and every path inside the suite's source folder as {mcb}/..."""
    if not isinstance(text, str):
        return text
    if root:
        text = _strip(root, "", text).replace("``", "`.`")
    return _strip(SOURCE, SOURCE_MARK + "/", text)


def _provenance_lines(part, root=None):
    """Readable lines of a part's provenance: what records or simulations, where, when; paths
    relative to @p root."""
    return [_relative(root, line) for line in _provenance_text(part)]


def _provenance_text(part):
    m = part.manifest
    p = m.get("provenance") or {}
    lines = []
    if m.get("kind") == "measurement":
        lines.append(f"calibration folder `{p.get('folder')}`")
        counts = p.get("record_counts") or {}
        if counts:
            nv = (counts.get("not_valid") or {}).get("total", 0)
            lines.append(f"records: {counts.get('read')} read from "
                         f"{', '.join(counts.get('files') or [])}; {counts.get('used')} valid "
                         f"used; {nv} not valid (never in a table); "
                         f"{counts.get('left_out_by_where', 0)} left out by --where, "
                         f"{counts.get('left_out_by_runtime_where', 0)} left out of the "
                         "runtime table by --runtime-where")
        if p.get("runtime_records"):
            lines.append(f"runtime table: {p['runtime_records']} runs")
        for key in ("hosts", "dates", "revisions"):
            if p.get(key):
                lines.append(f"{key}: {', '.join(p[key])}")
        filters = {k: v for k, v in (p.get("filters") or {}).items() if v}
        if filters:
            lines.append("filters: " + "; ".join(f"{k} {' '.join(v)}" for k, v in
                                                  filters.items()))
        if p.get("source"):
            lines.append(f"source: {p['source']}")
        g = p.get("generated_by") or {}
        if g:
            lines.append(f"calibrated on {g.get('host')} at {g.get('date')} by revision "
                         f"{g.get('revision')}: `{' '.join(g.get('command_line') or [])}`")
    elif m.get("kind") == "simulation":
        for s in p.get("sweeps", []):
            if "point" in s:  # a one-point run
                env = s.get("env") or {}
                lines.append(f"run **{s.get('mix')}**: `{s.get('folder')}`; point "
                             f"{json.dumps(s.get('point'), sort_keys=True)}; simulated on "
                             f"{env.get('host')} at {env.get('date')} by revision "
                             f"{env.get('revision')}: `{' '.join(env.get('command_line') or [])}`")
                continue
            w = s.get("workload") or {}
            t = s.get("tables") or {}
            env = s.get("env") or {}
            seeds = s.get("seeds") or {}
            lines.append(
                f"mix **{s.get('mix')}**: `{s.get('folder')}`; {w.get('jobs')} jobs per point, "
                f"{s.get('points')} points, {s.get('replications')} replication(s), base seed "
                f"{seeds.get('base')}, warm-up {s.get('warmup_jobs')} jobs; clusters "
                f"{s.get('clusters')}; policies {', '.join(s.get('policies') or [])}, rules "
                f"{', '.join(s.get('rules') or [])}, placement "
                f"{', '.join(s.get('placement') or [])}, queue {', '.join(s.get('queue') or [])}; "
                f"tables `{t.get('files')}` (sha256 {', '.join(t.get('sha256') or []) or '?'}, "
                f"statistic {t.get('statistic')}, chosen "
                f"{json.dumps(t.get('chosen'), sort_keys=True)}); simulated on {env.get('host')} "
                f"at {env.get('date')} by revision {env.get('revision')}: "
                f"`{' '.join(env.get('command_line') or [])}`")
    g = m.get("generated_by") or {}
    lines.append(f"analysed on {g.get('host')} at {g.get('date')} by revision "
                 f"{g.get('revision')}: `{' '.join(g.get('command_line') or [])}`")
    return lines


class Report:
    def __init__(self, title, parts, intro="", attachments=(), root=None, summary=()):
        """@p summary: ids of items (the saturation tables) shown at the top, under the intro,
        instead of in their part."""
        self.title = title
        self.root = os.path.abspath(root) if root else None
        self.parts = parts
        self.intro = intro
        self.attachments = list(attachments)
        found = {item["id"]: (part, item) for part in parts for item in part.manifest["items"]}
        for item_id in summary:
            if item_id not in found:
                raise BadInput(f"--summary: no item '{item_id}' in the parts")
        self.summary = [found[i] for i in summary]
        self.date = utc_now()
        self.revision = suite_revision()
        self.host = os.uname().nodename

    def inputs(self):
        """Every file the report's numbers come from (for report.json and the tests)."""
        out = []
        for part in self.parts:
            out.append({"part": part.title, "manifest": part.source.to_json(),
                        "inputs": part.manifest.get("inputs", [])})
        return out

    # --- Markdown -------------------------------------------------------------------------
    def where(self, path):
        """A path as the report shows it: relative to the results folder when inside it."""
        return _relative(self.root, path) or "."

    def markdown(self, out_dir, html_tables=False):
        """The report as Markdown; @p html_tables puts each item table in as HTML (its grouped
        header), for the HTML page."""
        md = [f"# {self.title}", "",
              f"Written {self.date} on {self.host} by mcb revision {self.revision}."
              + (f" Paths are relative to the results folder `{self.root}`;" if self.root
                 else "")
              + f" `{SOURCE_MARK}/` is the suite's source folder `{SOURCE}`.", ""]
        if self.intro:
            md += [_relative(self.root, self.intro.rstrip()), ""]
        for part, item in self.summary:
            md += self._item_md(part, item, out_dir, html_tables)
        md += ["## Contents", ""]
        for part in self.parts:
            md.append(f"- [{part.title}](#{_anchor(part.title)})")
            titles = [item["title"] for item in part.manifest["items"]]
            heads = [t.split(":")[0] for t in titles]
            tails = [t.rsplit(": ", 1)[-1] for t in titles]
            for item, head, tail in zip(part.manifest["items"], heads, tails):
                # The title up to its colon; where items share that, what follows the last
                # colon ("summary", "Gantt chart of 600 jobs"); else the whole title.
                entry = head if heads.count(head) == 1 else \
                    tail if tails.count(tail) == 1 else item["title"]
                # Four spaces: nested under the part in every Markdown (python-markdown too).
                md.append(f"    - [{entry}](#{_anchor(item['id'])})")
        md.append("- [Provenance](#provenance)")
        if self.attachments:
            md.append("- [Configuration files](#configuration-files)")
        md.append("")
        for part in self.parts:
            md += [f'<a id="{_anchor(part.title)}"></a>', "", f"## {part.title}", ""]
            for item in part.manifest["items"]:
                if any(item is shown for _, shown in self.summary):
                    md += [f"- [{item['title']}](#{_anchor(item['id'])}): in the summary at the "
                           "top.", ""]
                    continue
                md += self._item_md(part, item, out_dir, html_tables)
            for s in part.manifest.get("skipped", []):
                md.append(f"- Not drawn: `{s['id']}` — {_relative(self.root, s['reason'])}.")
            if part.manifest.get("skipped"):
                md.append("")
        md += ['<a id="provenance"></a>', "", "## Provenance", ""]
        for part in self.parts:
            md += [f"### {part.title}", ""]
            md += [f"- {line}" for line in _provenance_lines(part, self.root)]
            md += ["", "| input file | sha256 | rows |", "|---|---|---:|"]
            for src in part.manifest.get("inputs", []):
                md.append(f"| `{self.where(src['path'])}` | `{src['sha256']}` | "
                          f"{src.get('rows', '')} |")
            md.append("")
        if self.attachments:
            md += ['<a id="configuration-files"></a>', "", "## Configuration files", ""]
            for a in self.attachments:
                md += [f"### {a.label}", "",
                       f"`{self.where(a.source.path)}` (sha256 `{a.source.sha256}`)",
                       "", "```", a.text.rstrip(), "```", ""]
        return "\n".join(md) + "\n"

    def _item_md(self, part, item, out_dir, html_tables=False):
        md = [f'<a id="{_anchor(item["id"])}"></a>', ""]
        # A figure's title is drawn in its picture: a heading would print it a second time.
        if item["kind"] == "table":
            md += [f"### {item['title']}", ""]
        if item["kind"] == "table" and html_tables:
            md += [_html_table(item["table"]), ""]
        elif item["kind"] == "table":
            with open(part.file(item, "markdown"), encoding="utf-8") as f:
                text = f.read()
            body = text.split("\n\n", 1)[1] if text.startswith("**") else text
            md += [body.rstrip(), ""]
            md.append(f"Files: [{item['files']['csv']}]"
                      f"({os.path.relpath(part.file(item, 'csv'), out_dir)})")
        else:
            png = os.path.relpath(part.file(item, "png"), out_dir)
            md += [f"![{item['title']}]({png})", ""]
            md.append(f"Files: [PNG]({png}), [SVG]"
                      f"({os.path.relpath(part.file(item, 'svg'), out_dir)}), [plotted data]"
                      f"({os.path.relpath(part.file(item, 'data'), out_dir)})")
        md.append("")
        for note in item.get("notes") or []:
            md += [f"*Note:* {note}", ""]
        if item.get("source"):
            md += [f"*Source:* {_relative(self.root, item['source'])}", ""]
        return md

    # --- HTML -----------------------------------------------------------------------------
    def html(self, out_dir):
        """The Markdown above rendered by python-markdown, with the item tables as HTML (their
        grouped headers) and every figure embedded, so the page stands alone."""
        import markdown  # Debian's python3-markdown (scripts/packages.txt)
        body = markdown.markdown(self.markdown(out_dir, html_tables=True),
                                 extensions=["tables", "fenced_code", "sane_lists"],
                                 output_format="html")

        def embed(match):
            with open(os.path.normpath(os.path.join(out_dir, html.unescape(match.group(2)))),
                      "rb") as f:
                data = base64.b64encode(f.read()).decode("ascii")
            return f'{match.group(1)}"data:image/png;base64,{data}"'
        body = re.sub(r'(<img alt="[^"]*" src=)"([^"]+\.png)"', embed, body)
        body = re.sub(r'<a href="(?!#|data:|[a-z]+://)([^"]+)">(.*?)</a>',
                      lambda m: self._embedded_link(out_dir, m), body)
        e = html.escape
        return "\n".join(["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
                          f"<title>{e(self.title)}</title>", f"<style>{CSS}</style></head>",
                          "<body>", body, "</body></html>"]) + "\n"


    def _embedded_link(self, out_dir, match):
        """A link to a file of the results (CSV, SVG, plotted data) as the file itself, so the
        page keeps its data wherever it is moved; a file past EMBED_LIMIT is named instead."""
        path = os.path.normpath(os.path.join(out_dir, html.unescape(match.group(1))))
        name = html.escape(os.path.basename(path))
        size = os.path.getsize(path) if os.path.isfile(path) else None
        if size is None or size > EMBED_LIMIT:
            why = "missing" if size is None else f"{size / 1e6:.1f} MB, not embedded"
            return (f"{match.group(2)} (<code>{html.escape(self.where(path))}</code>, "
                    f"{why})")
        with open(path, "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
        kind = MEDIA_TYPES.get(os.path.splitext(path)[1], "application/octet-stream")
        return f'<a download="{name}" href="data:{kind};base64,{data}">{match.group(2)}</a>'


# Files linked from the page are embedded up to this size (bytes); a Gantt chart's SVG of a
# whole trace is larger, and the page would grow past what a browser opens quickly.
EMBED_LIMIT = 2_000_000
MEDIA_TYPES = {".csv": "text/csv", ".json": "application/json", ".svg": "image/svg+xml",
               ".png": "image/png", ".md": "text/markdown"}


def _html_table(t):
    e = html.escape
    out = ["<table>"]
    columns = t["columns"]
    groups = t.get("groups")
    if groups:
        lead = len(columns) - sum(span for _, span in groups)
        out.append("<tr>" + "".join(f'<th rowspan="2">{e(c)}</th>' for c in columns[:lead]) +
                   "".join(f'<th colspan="{span}">{e(label)}</th>' for label, span in groups) +
                   "</tr>")
        inner = []
        i = lead
        for label, span in groups:
            for c in columns[i:i + span]:
                inner.append(c[len(label):].strip() if c.startswith(label) else c)
            i += span
        out.append("<tr>" + "".join(f"<th>{e(c)}</th>" for c in inner) + "</tr>")
    else:
        out.append("<tr>" + "".join(f"<th>{e(c)}</th>" for c in columns) + "</tr>")
    for row in t["rows"]:
        out.append("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em;margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0;font-size:.85em}
th,td{border:1px solid #bbb;padding:.2em .5em;text-align:right}
th{background:#f0f0f0;text-align:center}td:first-child{text-align:left}
img{max-width:100%;border:1px solid #eee}
.meta,.source,.note{color:#555;font-size:.85em}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:.8em}
code{font-size:.9em}nav ul{font-size:.9em}
"""
