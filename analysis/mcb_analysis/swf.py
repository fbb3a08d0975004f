"""The Standard Workload Format (Parallel Workloads Archive, version 2.2) as the analysis reads
it: header comments ("; Key: value") and one job a line of 18 numeric fields, -1 for unknown.
Mirrors simulator/swf.hpp, the format's owner: the same field meanings, the same header keys
(UnixStartTime, TimeZoneString without the archive's "# remark")."""

import math

from .cli import BadInput, MissingInput

# The 18 fields in order; the times (seconds) and averages may have fractions, the rest are
# whole numbers.
FIELDS = ["job", "submit", "wait", "run", "procs", "cpu", "memory", "req_procs", "req_time",
          "req_memory", "status", "user", "group", "executable", "queue", "partition",
          "preceding", "think"]
FRACTIONAL = {"submit", "wait", "run", "cpu", "memory", "req_time", "req_memory", "think"}


def plain(value):
    """A header value without the archive's '# remark'."""
    return str(value).split("#", 1)[0].strip()


def read_swf(path):
    """Returns (header, rows): header the "Key: value" pairs in file order, rows one list of 18
    numbers a job (int, or float for the fractional fields). A line that is not 18 numbers, or a
    whole-number field with a fraction, is a BadInput naming the file and line."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        raise MissingInput(f"{path}: no such file")
    except UnicodeDecodeError as e:
        raise BadInput(f"{path}: not UTF-8 text ({e.reason})")
    header, rows = [], []
    for n, line in enumerate(lines, start=1):
        text = line.strip()
        if not text:
            continue
        if text.startswith(";"):
            key, colon, value = text[1:].partition(":")
            key = key.strip()
            if colon and key and " " not in key and not rows:
                header.append((key, value.strip()))
            continue
        rows.append(_job(text, f"{path}:{n}"))
    if not rows:
        raise BadInput(f"{path}: no job lines (not an SWF file?)")
    return header, rows


def _job(text, where):
    fields = text.split()
    if len(fields) != 18:
        raise BadInput(f"{where}: {len(fields)} fields; SWF lines have 18")
    row = []
    for name, cell in zip(FIELDS, fields):
        try:
            value = float(cell)
        except ValueError:
            raise BadInput(f"{where}: field {name}: '{cell}' is not a number")
        if not math.isfinite(value):
            raise BadInput(f"{where}: field {name}: '{cell}' is not a number")
        if name not in FRACTIONAL:
            if value != int(value):
                raise BadInput(f"{where}: field {name}: '{cell}' is not a whole number")
            value = int(value)
        row.append(value)
    return row


def header_value(header, key):
    """The last value of a header key, or None."""
    values = [v for k, v in header if k == key]
    return values[-1] if values else None


def swf_text(header, rows):
    """An SWF file as simulator/swf.hpp writes it: "; Key: value" header lines (Version first by
    SWF's definition), then one line of 18 fields a job; whole-number fields as integers, times
    in their shortest exact form (repr)."""
    lines = [f"; {k}: {v}" for k, v in header]
    for row in rows:
        if len(row) != len(FIELDS):
            raise ValueError(f"an SWF line has {len(FIELDS)} fields, not {len(row)}")
        cells = []
        for name, value in zip(FIELDS, row):
            if name in FRACTIONAL:
                cells.append(repr(float(value)).removesuffix(".0"))
            else:
                cells.append(str(int(value)))
        lines.append(" ".join(cells))
    return "\n".join(lines) + "\n"
