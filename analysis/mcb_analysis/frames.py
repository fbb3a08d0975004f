"""The suite's files as pandas DataFrames, for notebooks. Every file is read through inputs.py,
the analysis's one reader, so a notebook sees the same checks (and the same messages) as the
scripts."""

import os

import pandas as pd

from .cli import BadInput
from .inputs import read_csv, read_records
from .point_figures import JOB_COLUMNS
from .sweeps import SWEEP_COLUMNS, SWEEP_NUMBERS, TEXT


def _typed(frame):
    """Columns whose every non-empty cell is a number become numbers (empty cells NaN)."""
    for column in frame.columns:
        cells = frame[column]
        if not len(cells) or cells.dtype != object:
            continue
        converted = pd.to_numeric(cells.replace("", float("nan")), errors="coerce")
        if converted.notna().sum() == (cells != "").sum():
            frame[column] = converted
    return frame


def _files(path, suffix):
    if os.path.isfile(path):
        return [path]
    if not os.path.isdir(path):
        raise BadInput(f"{path}: no such file or folder")
    found = sorted(os.path.join(d, f) for d, _, names in os.walk(path) for f in names
                   if f.endswith(suffix))
    if not found:
        raise BadInput(f"{path}: no {suffix} file in the folder")
    return found


def load_records(folder):
    """Every run record (JSON Lines, schema mcb-run/2, or mcb-run/1 read as mcb-run/2: bandwidths
    in MB/s) in a file or under a folder, one row per
    run, nested fields flattened with dots (config.grid, env.host, result.time, ...) and the
    file in column `file`."""
    rows = []
    for path in _files(folder, ".jsonl"):
        for record in read_records(path):
            rows.append(dict(record, file=path))
    return pd.json_normalize(rows)


def load_tables(folder, table="runtimes"):
    """One calibration table of mcb-calibrate's folder (runtimes, comm_time, comm_sync,
    rank_comm, transfer_rates), numbers typed."""
    path = os.path.join(folder, f"{table}.csv") if os.path.isdir(folder) else folder
    frame, _ = read_csv(path, [], allow_no_rows=True)
    return _typed(frame)


def load_sweep(folder):
    """sweep.csv of an mcb-sim sweep, numbers typed."""
    path = os.path.join(folder, "sweep.csv") if os.path.isdir(folder) else folder
    frame, _ = read_csv(path, SWEEP_COLUMNS, numeric=SWEEP_NUMBERS,
                        strings=TEXT)
    return _typed(frame)


def load_jobs(folder, schedule=False):
    """jobs.csv of a one-point mcb-sim run (one row per job), numbers typed; with
    schedule=True, Batsim's jobs file batsim_jobs.csv of the same run instead."""
    if schedule:
        from .schedule_figures import BATSIM_COLUMNS, BATSIM_NUMBERS
        path = os.path.join(folder, "batsim_jobs.csv") if os.path.isdir(folder) else folder
        frame, _ = read_csv(path, BATSIM_COLUMNS, numeric=BATSIM_NUMBERS,
                            strings=["profile"])
    else:
        path = os.path.join(folder, "jobs.csv") if os.path.isdir(folder) else folder
        frame, _ = read_csv(path, JOB_COLUMNS, allow_no_rows=True, strings=["app"])
    return _typed(frame)
