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

import pandas as pd

from .cli import BadInput

# The versions of the documents this analysis reads, by what writes them.
CALIBRATION_SCHEMA = "mcb-calibration/1"  # calibration.json (mcb-calibrate)
SWEEP_SCHEMA = "mcb-sim-sweep/1"          # sweep.json (mcb-sim)


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


def read_csv(path, required, numeric=(), allow_no_rows=False, strings=()):
    """Reads a CSV with a header. Every column in `required` must be there; columns in `numeric`
    must hold numbers (empty cells become NaN). Returns (DataFrame, Source)."""
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file")
    if os.path.getsize(path) == 0:
        raise BadInput(f"{path}: empty file")
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
        raise BadInput(f"{path}: no such file")
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


def natural_key(text):
    """Digit runs compare as numbers: '64x64' < '100x100' < '1000x1000'."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", str(text)) if p]

