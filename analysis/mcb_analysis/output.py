"""What an analysis step writes: tables (Markdown + CSV), figures (PNG + SVG + the plotted data as
JSON) and manifest.json, which lists every item with the inputs behind it. Everything is rendered
in memory first and written file by file atomically."""

import datetime
import io
import json
import math
import os
import subprocess
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .cli import write_atomically  # noqa: E402

MANIFEST_SCHEMA = "mcb-analysis/1"

plt.rcParams.update({
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "svg.hashsalt": "mcb",  # stable SVG ids: the same data gives the same file
    "svg.fonttype": "none",
})


def suite_revision(root=None):
    """git describe of the tree the analysis runs from ('unknown' outside a checkout)."""
    root = root or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        out = subprocess.run(["git", "-C", root, "describe", "--always", "--dirty", "--abbrev=12"],
                             capture_output=True, text=True, timeout=10)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return "unknown"


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def number(value):
    """A cell as the paper prints it: about three significant digits, no exponent for the
    magnitudes the tables hold."""
    if _missing(value):
        return "—"
    v = float(value)
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    if a == 0:
        return "0"
    return f"{v:.3g}"


def plain(value):
    """Full precision for the CSV and JSON files ('' for a missing value)."""
    if _missing(value):
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    return value


class Table:
    """A table as shown: optional column groups (label, span) over the columns, rows of cells
    (already formatted), and the same numbers at full precision for the CSV."""

    def __init__(self, item_id, title, columns, groups=None):
        self.id = item_id
        self.title = title
        self.columns = columns
        self.groups = groups
        self.rows = []       # shown cells
        self.raw = []        # full-precision values, same shape
        self.notes = []
        self.source = ""

    def add(self, raw_cells):
        """Cells are numbers (formatted here), text, None (no data) or a pair (shown text,
        value for the CSV)."""
        raw, shown = [], []
        for c in raw_cells:
            if isinstance(c, tuple):
                shown.append(c[0])
                raw.append(plain(c[1]))
            elif isinstance(c, float) or c is None:
                shown.append(number(c))
                raw.append(plain(c))
            else:
                shown.append(str(c))
                raw.append(c)
        self.raw.append(raw)
        self.rows.append(shown)

    def flat_columns(self):
        if not self.groups:
            return list(self.columns)
        lead = len(self.columns) - sum(span for _, span in self.groups)
        out, i = list(self.columns[:lead]), lead
        for label, span in self.groups:
            for c in self.columns[i:i + span]:
                out.append(f"{label} {c}".strip())
            i += span
        return out

    def markdown(self):
        cols = self.flat_columns()
        lines = ["| " + " | ".join(cols) + " |",
                 "|" + "|".join("---" if i == 0 else "---:" for i in range(len(cols))) + "|"]
        for row in self.rows:
            lines.append("| " + " | ".join(row) + " |")
        return "\n".join(lines) + "\n"

    def csv(self):
        def cell(v):
            if v is None:
                return ""
            text = str(v)
            return '"' + text.replace('"', '""') + '"' if ("," in text or '"' in text) else text
        lines = [",".join(cell(c) for c in self.flat_columns())]
        for row in self.raw:
            lines.append(",".join(cell(v) for v in row))
        return "\n".join(lines) + "\n"

    def to_json(self):
        return {"columns": self.flat_columns(), "groups": self.groups, "rows": self.rows,
                "values": self.raw}


def corner(fig, text):
    """The system label and suite revision, bottom right, small and grey (room is kept for it
    in figures laid out by constrained layout)."""
    engine = fig.get_layout_engine()
    if engine is not None and hasattr(engine, "set") and "constrained" in type(engine).__name__.lower():
        engine.set(rect=(0, 0.035, 1, 0.965))
    fig.text(0.995, 0.004, text, ha="right", va="bottom", fontsize=6.5, color="0.35")


def headline(fig, title, label, points=9.5):
    """The title on top, broken into lines that fit the figure's width, and the corner label."""
    width = fig.get_figwidth() * 72 / (points * 0.55)
    fig.suptitle("\n".join(textwrap.wrap(title, max(int(width), 30))), fontsize=points)
    corner(fig, label)


class Figure:
    """A matplotlib figure with the data drawn in it, kept for the JSON beside the picture."""

    def __init__(self, item_id, title, fig, data):
        self.id = item_id
        self.title = title
        self.fig = fig
        self.data = data
        self.notes = []
        self.source = ""

    def render(self):
        png = io.BytesIO()
        self.fig.savefig(png, format="png", dpi=130, metadata={"Software": None})
        # The layout is done: keep it for the SVG instead of computing it again.
        if self.fig.get_layout_engine() is not None:
            self.fig.set_layout_engine("none")
        svg = io.BytesIO()
        self.fig.savefig(svg, format="svg", metadata={"Date": None})
        plt.close(self.fig)
        return png.getvalue(), svg.getvalue()


class Outputs:
    """Collects the items of one analysis step, then writes them and the manifest."""

    def __init__(self, kind, title, label, inputs, provenance):
        self.kind = kind
        self.title = title
        self.label = label
        self.inputs = inputs
        self.provenance = provenance
        self.items = []
        self.skipped = []

    def add(self, item):
        self.items.append(item)

    def skip(self, item_id, reason):
        self.skipped.append({"id": item_id, "reason": reason})

    def write(self, directory, argv):
        os.makedirs(directory, exist_ok=True)
        entries = []
        files = []
        for item in self.items:
            entry = {"id": item.id, "title": item.title, "source": item.source,
                     "notes": item.notes}
            if isinstance(item, Table):
                entry["kind"] = "table"
                entry["files"] = {"markdown": item.id + ".md", "csv": item.id + ".csv"}
                entry["table"] = item.to_json()
                files.append((item.id + ".md", f"**{item.title}**\n\n" + item.markdown()))
                files.append((item.id + ".csv", item.csv()))
            else:
                entry["kind"] = "figure"
                entry["files"] = {"png": item.id + ".png", "svg": item.id + ".svg",
                                  "data": item.id + ".json"}
                png, svg = item.render()
                data = dict(item.data)
                data.update({"figure": item.id, "title": item.title, "corner": self.label})
                files.append((item.id + ".png", png))
                files.append((item.id + ".svg", svg))
                files.append((item.id + ".json", json.dumps(data, indent=1, allow_nan=False,
                                                             default=_json_default) + "\n"))
            entries.append(entry)
        manifest = {
            "schema": MANIFEST_SCHEMA,
            "kind": self.kind,
            "title": self.title,
            "label": self.label,
            "inputs": [s.to_json() for s in self.inputs],
            "provenance": self.provenance,
            "items": entries,
            "skipped": self.skipped,
            "generated_by": {"program": argv[0] if argv else "", "command_line": argv,
                             "revision": suite_revision(), "date": utc_now(),
                             "host": os.uname().nodename},
        }
        for name, content in files:
            write_atomically(os.path.join(directory, name), content)
        write_atomically(os.path.join(directory, "manifest.json"),
                         json.dumps(manifest, indent=1, allow_nan=False,
                                    default=_json_default) + "\n")
        return manifest

    def write_and_list(self, prog, directory, argv):
        """Writes everything (command line: prog and argv), then lists on stdout the items made
        and those skipped with the reason. Returns the exit code, 0."""
        manifest = self.write(directory, [prog] + list(argv))
        made = [i["id"] for i in manifest["items"]]
        print(f"{prog}: {len(made)} item(s) in {directory}: {', '.join(made)}")
        for s in manifest["skipped"]:
            print(f"  skipped {s['id']}: {s['reason']}")
        return 0


def _json_default(value):
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON: {value!r}")


def clean(values):
    """Floats for JSON: NaN becomes None."""
    out = []
    for v in values:
        v = float(v) if v is not None else None
        out.append(None if v is None or math.isnan(v) else v)
    return out
