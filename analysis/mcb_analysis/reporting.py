"""The report: the items of one or more analysis steps (their manifest.json) put together with
the configuration and provenance of every number, as Markdown (figures linked) and as one
self-contained HTML file (figures embedded)."""

import base64
import html
import json
import os

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


def _provenance_lines(part):
    """Readable lines of a part's provenance: what records or simulations, where, when."""
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
    def __init__(self, title, parts, intro="", attachments=()):
        self.title = title
        self.parts = parts
        self.intro = intro
        self.attachments = list(attachments)
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
    def markdown(self, out_dir):
        md = [f"# {self.title}", "",
              f"Written {self.date} on {self.host} by mcb revision {self.revision}.", ""]
        if self.intro:
            md += [self.intro.rstrip(), ""]
        md += ["## Contents", ""]
        for part in self.parts:
            md.append(f"- [{part.title}](#{_anchor(part.title)})")
            for item in part.manifest["items"]:
                md.append(f"  - [{item['title'].split(':')[0]}](#{_anchor(item['id'])})")
        md.append("- [Provenance](#provenance)")
        md.append("")
        for part in self.parts:
            md += [f"## {part.title}", ""]
            for item in part.manifest["items"]:
                md += self._item_md(part, item, out_dir)
            for s in part.manifest.get("skipped", []):
                md.append(f"- Not drawn: `{s['id']}` — {s['reason']}.")
            if part.manifest.get("skipped"):
                md.append("")
        md += ["## Provenance", ""]
        for part in self.parts:
            md += [f"### {part.title}", ""]
            md += [f"- {line}" for line in _provenance_lines(part)]
            md += ["", "| input file | sha256 | rows |", "|---|---|---:|"]
            for src in part.manifest.get("inputs", []):
                md.append(f"| `{src['path']}` | `{src['sha256']}` | {src.get('rows', '')} |")
            md.append("")
        if self.attachments:
            md += ["## Configuration files", ""]
            for a in self.attachments:
                md += [f"### {a.label}", "", f"`{a.source.path}` (sha256 `{a.source.sha256}`)",
                       "", "```", a.text.rstrip(), "```", ""]
        return "\n".join(md) + "\n"

    def _item_md(self, part, item, out_dir):
        md = [f'<a id="{_anchor(item["id"])}"></a>', "", f"### {item['title']}", ""]
        if item["kind"] == "table":
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
            md += [f"*Source:* {item['source']}", ""]
        return md

    # --- HTML -----------------------------------------------------------------------------
    def html(self):
        e = html.escape
        h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{e(self.title)}</title>", f"<style>{CSS}</style></head><body>",
             f"<h1>{e(self.title)}</h1>",
             f'<p class="meta">Written {e(self.date)} on {e(self.host)} by mcb revision '
             f"{e(self.revision)}.</p>"]
        if self.intro:
            h.append(_md_paragraphs(self.intro))
        h.append("<nav><h2>Contents</h2><ul>")
        for part in self.parts:
            h.append(f'<li><a href="#{_anchor(part.title)}">{e(part.title)}</a><ul>')
            for item in part.manifest["items"]:
                h.append(f'<li><a href="#{_anchor(item["id"])}">{e(item["title"])}</a></li>')
            h.append("</ul></li>")
        h.append('<li><a href="#provenance">Provenance</a></li></ul></nav>')
        for part in self.parts:
            h.append(f'<h2 id="{_anchor(part.title)}">{e(part.title)}</h2>')
            for item in part.manifest["items"]:
                h.append(f'<section id="{_anchor(item["id"])}"><h3>{e(item["title"])}</h3>')
                if item["kind"] == "table":
                    h.append(_html_table(item["table"]))
                else:
                    with open(part.file(item, "png"), "rb") as f:
                        data = base64.b64encode(f.read()).decode("ascii")
                    h.append(f'<img alt="{e(item["title"])}" src="data:image/png;base64,{data}">')
                for note in item.get("notes") or []:
                    h.append(f'<p class="note"><b>Note:</b> {e(note)}</p>')
                if item.get("source"):
                    h.append(f'<p class="source"><b>Source:</b> {e(item["source"])}</p>')
                h.append("</section>")
            for s in part.manifest.get("skipped", []):
                h.append(f'<p class="note">Not drawn: <code>{e(s["id"])}</code> — '
                         f'{e(s["reason"])}.</p>')
        h.append('<h2 id="provenance">Provenance</h2>')
        for part in self.parts:
            h.append(f"<h3>{e(part.title)}</h3><ul>")
            for line in _provenance_lines(part):
                h.append(f"<li>{_inline(line)}</li>")
            h.append("</ul><table><tr><th>input file</th><th>sha256</th><th>rows</th></tr>")
            for src in part.manifest.get("inputs", []):
                h.append(f"<tr><td><code>{e(src['path'])}</code></td><td><code>"
                         f"{e(src['sha256'])}</code></td><td>{src.get('rows', '')}</td></tr>")
            h.append("</table>")
        if self.attachments:
            h.append("<h2>Configuration files</h2>")
            for a in self.attachments:
                h.append(f"<h3>{e(a.label)}</h3><p><code>{e(a.source.path)}</code> (sha256 "
                         f"<code>{a.source.sha256}</code>)</p><pre>{e(a.text)}</pre>")
        h.append("</body></html>")
        return "\n".join(h) + "\n"


def _inline(text):
    """`code` and **bold** of the provenance lines, escaped."""
    out = []
    for i, piece in enumerate(text.split("`")):
        piece = html.escape(piece)
        if i % 2 == 1:
            out.append(f"<code>{piece}</code>")
        else:
            bold = piece.split("**")
            out.append("".join(f"<b>{b}</b>" if k % 2 else b for k, b in enumerate(bold)))
    return "".join(out)


def _md_paragraphs(text):
    """The intro: paragraphs, `code`, **bold**, '- ' lists and fenced blocks."""
    out, lines, in_list, in_code = [], text.strip().splitlines(), False, False
    para = []

    def flush():
        if para:
            out.append("<p>" + _inline(" ".join(para)) + "</p>")
            para.clear()
    for line in lines:
        if line.startswith("```"):
            flush()
            out.append("</pre>" if in_code else "<pre>")
            in_code = not in_code
            continue
        if in_code:
            out.append(html.escape(line))
            continue
        if line.startswith("- "):
            flush()
            if not in_list:
                out.append("<ul>")
                in_list = True
            out.append(f"<li>{_inline(line[2:])}</li>")
            continue
        if in_list:
            out.append("</ul>")
            in_list = False
        if line.startswith("#"):
            flush()
            level = min(len(line) - len(line.lstrip("#")) + 1, 4)
            out.append(f"<h{level}>{_inline(line.lstrip('#').strip())}</h{level}>")
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
    flush()
    if in_list:
        out.append("</ul>")
    return "\n".join(out)


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
