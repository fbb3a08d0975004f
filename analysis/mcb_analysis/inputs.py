"""Reading the suite's CSV and JSON files, checked: a missing or empty file, a missing column or a
cell that is not a number is a BadInput naming the file (and line and column). Every file the
analysis reads passes through this module; a JSON document that carries a `schema` field is
checked against the version this analysis reads (the SCHEMAS below, written by the C++ programs).
"""

import hashlib
import json
import math
import os
import re
import sys

import pandas as pd

from .cli import BadInput, MissingInput

# The versions of the documents this analysis reads, by what writes them.
CALIBRATION_SCHEMA = "mcb-calibration/1"  # calibration.json (mcb-calibrate)
SWEEP_SCHEMA = "mcb-sim-sweep/1"          # sweep.json (mcb-sim)
SUMMARY_SCHEMA = "mcb-sim-summary/1"      # summary.json of one point (mcb-sim)
RECORD_SCHEMA = "mcb-run/2"               # run records, JSON Lines (mcb-poisson, -ensflow, -links)
RECORD_SCHEMA_V1 = "mcb-run/1"            # the earlier version, bandwidths in B/s, still read


def digest(path):
    """sha256 of a file, all 64 hex digits (names the exact input in the report)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


class Source:
    """A file read, for the provenance: path, digest, rows."""

    def __init__(self, path, rows=None):
        self.path = os.path.abspath(path)
        self.sha256 = digest(path)
        self.rows = rows

    def to_json(self):
        out = {"path": self.path, "sha256": self.sha256}
        if self.rows is not None:
            out["rows"] = self.rows
        return out


def _first_line(path):
    """The first line that is not blank, stripped ('' for none or a file that is not text)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.strip():
                    return line.strip()
    except OSError:
        pass
    return ""


def read_csv(path, required, numeric=(), allow_no_rows=False, strings=()):
    """Reads a CSV with a header. Every column in `required` must be there; columns in `numeric`
    must hold numbers (empty cells become NaN). Returns (DataFrame, Source)."""
    if not os.path.exists(path):
        raise MissingInput(f"{path}: no such file")
    if os.path.getsize(path) == 0:
        raise BadInput(f"{path}: empty file")
    if _first_line(path).startswith(";"):
        raise BadInput(f"{path}: a Standard Workload Format file (header lines start with ';'), "
                       "not CSV")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skip_blank_lines=True)
    except pd.errors.EmptyDataError:
        raise BadInput(f"{path}: empty file")
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: not a CSV file ({' '.join(str(e).split())})")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise BadInput(f"{path}: missing column(s) {', '.join(missing)} "
                       f"(header: {','.join(frame.columns)})")
    if frame.empty and not allow_no_rows:
        raise BadInput(f"{path}: no rows after the header")
    for column in required:
        if column in numeric:
            continue
        for i, value in enumerate(frame[column]):
            if value.strip() == "" and column not in strings:
                raise BadInput(f"{path}:{i + 2}: column {column} is empty")
    for column in numeric:
        values = []
        for i, text in enumerate(frame[column]):
            text = text.strip()
            if text == "":
                values.append(math.nan)
                continue
            try:
                values.append(float(text))
            except ValueError:
                raise BadInput(f"{path}:{i + 2}: column {column}: '{text}' is not a number")
        frame[column] = values
    return frame, Source(path, len(frame))


def read_json(path, required=(), schema=None):
    """Reads a JSON object; keys in `required` must be present and, when `schema` is given, its
    `schema` field must be that version. Returns (dict, Source)."""
    if not os.path.exists(path):
        raise MissingInput(f"{path}: no such file")
    if os.path.getsize(path) == 0:
        raise BadInput(f"{path}: empty file")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: not JSON ({e})")
    if not isinstance(doc, dict):
        raise BadInput(f"{path}: not a JSON object")
    missing = [k for k in required if k not in doc]
    if missing:
        raise BadInput(f"{path}: missing key(s) {', '.join(missing)}")
    if schema is not None and doc.get("schema") != schema:
        raise BadInput(f"{path}: schema '{doc.get('schema')}' is not '{schema}' "
                       "(the version this analysis reads)")
    return doc, Source(path)


def read_jsonl(path, schema=None):
    """Reads JSON Lines (docs/records.md): one object per line, blank lines skipped. A torn last
    line (no line end, not JSON: a run killed while writing) is left out with one notice on
    stderr, as mcb-campaign and mcb-calibrate do; a malformed line elsewhere, a line that is not
    an object or, when `schema` (a version or a tuple of them) is given, a record of another
    schema is a BadInput naming the
    file and line. Returns the list of objects."""
    if not os.path.exists(path):
        raise MissingInput(f"{path}: no such file")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        raise BadInput(f"{path}: not UTF-8 text ({e.reason})")
    lines = text.split("\n")
    torn = lines[-1] if lines and lines[-1].strip() else None
    body = lines[:-1]
    records = []
    for number, line in enumerate(body + ([torn] if torn is not None else []), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            if torn is not None and number == len(body) + 1:
                print(f"{path}:{number}: torn last line ignored (no line end, not JSON)",
                      file=sys.stderr)
                break
            raise BadInput(f"{path}:{number}: not JSON ({e.msg})")
        if not isinstance(record, dict):
            raise BadInput(f"{path}:{number}: not a JSON object")
        known = schema if isinstance(schema, tuple) else (schema,)
        if schema is not None and record.get("schema") not in known:
            raise BadInput(f"{path}:{number}: schema '{record.get('schema')}' is not "
                           f"'{' or '.join(known)}' (the version this analysis reads)")
        records.append(record)
    return records


def _scale(obj, key, divisor=1e6):
    if isinstance(obj, dict) and isinstance(obj.get(key), (int, float)) \
            and not isinstance(obj.get(key), bool):
        obj[key] = obj[key] / divisor


def _scale_stats(obj):
    for key in ("min", "avg", "max", "median", "stddev"):
        _scale(obj, key)


def read_records(path):
    """The run records of one JSON Lines file, each in RECORD_SCHEMA (a version-1 record is
    converted by current_record); a record of any other schema is a BadInput naming its line."""
    return [current_record(r) for r in read_jsonl(path, schema=(RECORD_SCHEMA, RECORD_SCHEMA_V1))]


def current_record(record):
    """A run record in RECORD_SCHEMA: a version-1 record (bandwidths in bytes/s) gets the fields
    docs/records.md lists under "Versions" in MB/s, as common/run_record.cpp reads it; any other
    record is returned as it is."""
    if record.get("schema") != RECORD_SCHEMA_V1:
        return record
    wan = (record.get("config") or {}).get("wan")
    if isinstance(wan, dict):
        _scale(wan, "bandwidth")
        for link in wan.get("links") or []:
            _scale(link, "bandwidth")
    result = record.get("result") or {}
    if record.get("app") == "poisson":
        _scale(result, "transfer_rate")
    if record.get("app") == "links" and isinstance(result, dict):
        for c in (result.get("classes") or {}).values():
            for r in c.get("bandwidth") or []:
                _scale_stats(r)
            for fit in ("fit", "fit_min", "nominal"):
                _scale(c.get(fit), "bandwidth")
            shared = c.get("shared") or {}
            _scale_stats(shared.get("alone"))
            for t in shared.get("together") or []:
                _scale_stats(t)
        _scale((result.get("relay_study") or {}).get("lower_bound"), "bandwidth")
        verdict = record.get("verdict") or {}
        link = (verdict.get("checks") or {}).get("emulated_link") or {}
        for side in ("nominal", "fitted"):
            _scale(link.get(side), "bandwidth")
        merit = verdict.get("figure_of_merit")
        if isinstance(merit, dict) and merit.get("unit") == "B/s":
            _scale(merit, "value")
            merit["unit"] = "MB/s"
    record["schema"] = RECORD_SCHEMA
    return record


def natural_key(text):
    """Digit runs compare as numbers: '64x64' < '100x100' < '1000x1000'."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", str(text)) if p]

