"""The suite's files as pandas DataFrames (and its JSON summaries as dicts), for notebooks. Every
file is read through inputs.py or swf.py, the analysis's readers, so a notebook sees the same
checks (and the same messages) as the scripts.

Column types are fixed per file, not guessed per file: times, rates and ratios are float64,
counts and identifiers int64 (Int64 where a cell is empty), everything else text; a column a
later version adds is float64 when every cell is a number, else text. Run records do not
say which numbers are counts, so every number in them is float64, except seeds, kept exact."""

import glob
import math
import os

import pandas as pd

from . import swf
from .cli import BadInput, MissingInput
from .inputs import SWEEP_SCHEMA, read_csv, read_json, read_records

SUMMARY_SCHEMA = "mcb-sim-summary/1"
FLOAT, INT, TEXT, BOOL = "float", "int", "text", "bool"

JOBS_TYPES = {"id": INT, "app": TEXT, "submit": FLOAT, "start": FLOAT, "end": FLOAT,
              "wait": FLOAT, "response": FLOAT, "bounded_slowdown": FLOAT, "total_size": INT,
              "components": INT, "clusters": TEXT, "queue": TEXT, "service": FLOAT,
              "net_service": FLOAT, "requested": FLOAT, "reserved": FLOAT, "measured": BOOL,
              "replication": INT}
BATSIM_TYPES = {"job_id": INT, "workload_name": TEXT, "profile": TEXT, "submission_time": FLOAT,
                "requested_number_of_resources": INT, "requested_time": FLOAT, "success": INT,
                "final_state": TEXT, "starting_time": FLOAT, "execution_time": FLOAT,
                "finish_time": FLOAT, "waiting_time": FLOAT, "turnaround_time": FLOAT,
                "stretch": FLOAT, "allocated_resources": TEXT, "consumed_energy": FLOAT,
                "metadata": TEXT}
SWEEP_TYPES = {"point": INT, "policy": TEXT, "placement": TEXT, "rule": TEXT, "queue": TEXT, "rate": FLOAT,
               "offered_utilization": FLOAT, "replications": INT, "response_mean": FLOAT,
               "response_ci95_half_width": FLOAT, "gross_utilization": FLOAT,
               "net_utilization": FLOAT, "measured_completed": INT, "saturated": BOOL,
               "saturation_point": TEXT}
TABLE_TYPES = {"total_size": INT, "components": INT, "n": INT}  # the rest float64 or text
SWF_TYPES = {name: FLOAT if name in swf.FRACTIONAL else INT for name in swf.FIELDS}


def _column(cells, kind, path, name):
    """One column of text cells as its type; a cell that does not fit is named by line."""
    if kind == TEXT:
        return cells.astype(str)
    text = cells.astype(str).str.strip()
    numbers = pd.to_numeric(text.where(text != ""), errors="coerce")
    for i in numbers.index[numbers.isna() & (text != "")][:1]:
        raise BadInput(f"{path}:{i + 2}: column {name}: '{text[i]}' is not a number")
    if kind == FLOAT:
        return numbers.astype("float64")
    given = numbers.dropna()
    if kind == BOOL:
        for i in given.index[~given.isin([0, 1])][:1]:
            raise BadInput(f"{path}:{i + 2}: column {name}: '{text[i]}' is not 0 or 1")
        return numbers.astype("boolean" if numbers.isna().any() else "bool")
    for i in given.index[given != given.round()][:1]:
        raise BadInput(f"{path}:{i + 2}: column {name}: '{text[i]}' is not a whole number")
    return numbers.astype("Int64" if numbers.isna().any() else "int64")


def _guess(cells):
    text = cells.astype(str).str.strip()
    numbers = pd.to_numeric(text.where(text != ""), errors="coerce")
    return FLOAT if len(text) and (numbers.notna() == (text != "")).all() else TEXT


def typed(frame, types, path):
    """Every column of a text frame as its type (types by name; others guessed)."""
    for name in frame.columns:
        frame[name] = _column(frame[name], types.get(name) or _guess(frame[name]), path, name)
    return frame


def _file(path, name):
    """path itself, or the file `name` in the folder path."""
    if os.path.isdir(path):
        path = os.path.join(path, name)
    if not os.path.exists(path):
        raise MissingInput(f"{path}: no such file")
    return path


def _csv(path, name, types, required, allow_no_rows=False):
    path = _file(path, name)
    frame, _ = read_csv(path, required, allow_no_rows=allow_no_rows, strings=list(types))
    return typed(frame, types, path)


def _record_files(path, probes):
    """(file, campaign) pairs: a main job's results folder (scripts/main-job.sh: campaign/NAME/
    records.jsonl, link probes in probe/) gives its campaigns, or with probes=True its probes;
    any other folder every *.jsonl under it; a file itself."""
    if os.path.isfile(path):
        return [(path, None)]
    if not os.path.isdir(path):
        raise MissingInput(f"{path}: no such file or folder")
    if os.path.isdir(os.path.join(path, "campaign")):
        if probes:
            found = [(f, None) for f in sorted(glob.glob(os.path.join(path, "probe", "*.jsonl")))]
        else:
            found = [(f, os.path.basename(os.path.dirname(f))) for f in
                     sorted(glob.glob(os.path.join(path, "campaign", "*", "records.jsonl")))]
        if not found:
            what = "probe/*.jsonl" if probes else "campaign/*/records.jsonl"
            raise MissingInput(f"{path}: no {what} (a main job's results folder)")
        return found
    found = sorted(os.path.join(d, f) for d, _, names in os.walk(path) for f in names
                   if f.endswith(".jsonl"))
    if not found:
        raise MissingInput(f"{path}: no .jsonl file in the folder")
    return [(f, None) for f in found]


def _record_numbers(frame):
    """Every number float64 (JSON does not tell a count from a time), seeds kept exact."""
    for name in frame.columns:
        if name.split(".")[-1] in ("seed", "seeds") or frame[name].dtype == bool:
            continue
        cells = frame[name]
        if pd.api.types.is_numeric_dtype(cells):
            frame[name] = cells.astype("float64")
        elif cells.dtype == object and len(cells) and all(
                v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
                or (isinstance(v, float) and math.isnan(v)) for v in cells):
            frame[name] = pd.to_numeric(cells, errors="coerce").astype("float64")
    return frame


def load_records(path, probes=False):
    rows = []
    for f, campaign in _record_files(path, probes):
        for record in read_records(f):
            row = dict(record, file=f)
            if campaign is not None:
                row["campaign"] = campaign
            rows.append(row)
    return _record_numbers(pd.json_normalize(rows))


def load_tables(path, table="runtimes"):
    path = _file(path, f"{table}.csv")
    frame, _ = read_csv(path, [], allow_no_rows=True)
    return typed(frame, TABLE_TYPES, path)


def load_sweep(path):
    return _csv(path, "sweep.csv", SWEEP_TYPES, [c for c in SWEEP_TYPES if c != "point"])


def load_jobs(path):
    return _csv(path, "jobs.csv", JOBS_TYPES, ["id", "app", "submit", "start", "end"],
                allow_no_rows=True)


def load_batsim(path):
    return _csv(path, "batsim_jobs.csv", BATSIM_TYPES,
                [c for c in BATSIM_TYPES if c != "metadata"])


def load_swf(path):
    """An SWF file as a frame of its 18 fields; the header in frame.attrs: "header" (the
    "Key: value" pairs in order), "unix_start" (int or None) and "time_zone" (or None)."""
    path = _file(path, "schedule.swf")
    header, rows = swf.read_swf(path)
    frame = pd.DataFrame(rows, columns=swf.FIELDS)
    for name, kind in SWF_TYPES.items():
        frame[name] = frame[name].astype("float64" if kind == FLOAT else "int64")
    start = swf.plain(swf.header_value(header, "UnixStartTime") or "")
    frame.attrs["header"] = header
    frame.attrs["unix_start"] = int(start) if start.lstrip("-").isdigit() else None
    frame.attrs["time_zone"] = swf.plain(swf.header_value(header, "TimeZoneString") or "") or None
    return frame


def load_summary(path):
    doc, _ = read_json(_file(path, "summary.json"), required=["config", "point", "result"],
                       schema=SUMMARY_SCHEMA)
    return doc


def load_sweep_json(path):
    doc, _ = read_json(_file(path, "sweep.json"), required=["config", "points"],
                       schema=SWEEP_SCHEMA)
    return doc
