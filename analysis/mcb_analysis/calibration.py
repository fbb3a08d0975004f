"""A calibration output folder (calibration/README.md, written by mcb-calibrate): the runtime
table with its provenance sidecar, and the communication tables of Poisson runs."""

import os

from .cli import BadInput
from .inputs import CALIBRATION_SCHEMA, natural_key, read_csv, read_json

RUNTIME_COLUMNS = ["app", "problem", "total_size", "components", "system", "n", "min", "avg",
                   "max", "median", "stddev"]
RUNTIME_NUMBERS = ["total_size", "components", "n", "min", "avg", "max", "median", "stddev"]
STATS = ["n", "min", "avg", "max", "median", "stddev"]

KEY = ["problem", "grid", "procs", "total_size", "components", "system"]
COMM_TIME_COLUMNS = KEY + ["sync", "iterations"] + STATS
COMM_SYNC_COLUMNS = KEY + ["iterations", "sync_n", "sync_avg", "nosync_n", "nosync_avg"]
RANK_COMM_COLUMNS = KEY + ["sync", "rank", "column", "row", "cluster", "direction", "n", "min",
                           "avg", "max", "intra_avg", "inter_avg"]
TRANSFER_COLUMNS = KEY + ["sync"] + STATS

# Columns that may be empty: stddev (undefined for one run), the average of a mode not run.
OPTIONAL = {"stddev", "median", "sync_avg", "nosync_avg"}


def _numbers(columns, text_columns):
    return [c for c in columns if c not in text_columns]


def _bool_column(frame, path, column):
    values = []
    for i, text in enumerate(frame[column]):
        t = text.strip().lower()
        if t not in ("true", "false"):
            raise BadInput(f"{path}:{i + 2}: column {column}: '{text}' is not true or false")
        values.append(t == "true")
    frame[column] = values


class Calibration:
    """The tables of one calibration folder, checked."""

    def __init__(self, directory):
        if not os.path.isdir(directory):
            raise BadInput(f"--calibration: '{directory}' is not a folder")
        self.dir = os.path.abspath(directory)
        self.sources = []
        path = os.path.join(directory, "runtimes.csv")
        if not os.path.exists(path):
            raise BadInput(f"{path}: no such file (not a calibration output folder)")
        self.runtimes, src = read_csv(path, RUNTIME_COLUMNS,
                                      numeric=RUNTIME_NUMBERS, strings=OPTIONAL)
        self.sources.append(src)
        for c in ("total_size", "components", "n"):
            self.runtimes[c] = self.runtimes[c].astype(int)
        for i, row in self.runtimes.iterrows():
            if not row["min"] <= row["avg"] <= row["max"]:
                raise BadInput(f"{path}:{i + 2}: min <= avg <= max does not hold "
                               f"({row['min']}, {row['avg']}, {row['max']})")
        sidecar = os.path.join(directory, "runtimes.json")
        self.sidecar, src = read_json(sidecar, required=["rows"])
        self.sources.append(src)
        self.manifest = None
        manifest = os.path.join(directory, "calibration.json")
        if os.path.exists(manifest):
            self.manifest, src = read_json(manifest, schema=CALIBRATION_SCHEMA)
            self.sources.append(src)
        self.comm_time = self._optional("comm_time.csv", COMM_TIME_COLUMNS, ["problem", "procs",
                                        "system", "sync"], bools=["sync"])
        self.comm_sync = self._optional("comm_sync.csv", COMM_SYNC_COLUMNS,
                                        ["problem", "procs", "system"])
        self.rank_comm = self._optional("rank_comm.csv", RANK_COMM_COLUMNS,
                                        ["problem", "procs", "system", "sync", "direction"],
                                        bools=["sync"])
        self.transfer = self._optional("transfer_rates.csv", TRANSFER_COLUMNS,
                                       ["problem", "procs", "system", "sync"], bools=["sync"])
        self._procs = {}
        for row in self.sidecar.get("rows", []):
            config = row.get("config") or {}
            key = (row.get("app"), row.get("problem"), int(row.get("total_size", 0)),
                   int(row.get("components", 0)), row.get("system"))
            if "procs" in config:
                self._procs[key] = config["procs"]
        if self.comm_time is not None:
            for _, r in self.comm_time.iterrows():
                self._procs.setdefault(("poisson", r["problem"], int(r["total_size"]),
                                        int(r["components"]), r["system"]), r["procs"])

    def _optional(self, name, columns, text, bools=()):
        path = os.path.join(self.dir, name)
        if not os.path.exists(path):
            return None
        frame, src = read_csv(path, columns, numeric=_numbers(columns, text),
                              allow_no_rows=True, strings=OPTIONAL)
        self.sources.append(src)
        for b in bools:
            _bool_column(frame, path, b)
        for c in ("grid", "total_size", "components", "rank", "column", "row", "cluster"):
            if c in frame.columns and len(frame):
                frame[c] = frame[c].astype(int)
        return frame if len(frame) else None

    def procs(self, app, problem, total_size, components, system):
        """The process grid ("HxV") of a runtime row, when known."""
        return self._procs.get((app, problem, int(total_size), int(components), system))

    def poisson_runtimes(self, procs):
        """The runtime rows of Poisson runs on one process grid."""
        rt = self.runtimes[self.runtimes["app"] == "poisson"]
        return rt[[self.procs("poisson", r["problem"], r["total_size"], r["components"],
                              r["system"]) == procs for _, r in rt.iterrows()]]

    def apps(self):
        """Applications in the tables, Poisson first (the paper's tables are Poisson's)."""
        return sorted(set(self.runtimes["app"]), key=lambda a: (a != "poisson", a))

    def provenance(self):
        """Records, hosts, dates and revisions behind the tables (from the sidecar and
        calibration.json)."""
        s = self.sidecar
        out = {
            "folder": self.dir,
            "runtime_records": len(s.get("records", [])),
            "hosts": s.get("hosts", []),
            "dates": s.get("dates", []),
            "revisions": s.get("revisions", []),
            "filters": s.get("filters", {}),
            "source": s.get("source", ""),
            "record_counts": s.get("record_counts"),
            "inputs": s.get("inputs", []),
            "generated_by": s.get("generated_by"),
        }
        if self.manifest is not None:
            out["records"] = self.manifest.get("records")
            out["calibration_inputs"] = self.manifest.get("inputs")
        return out


def grid_shape(procs):
    """'HxV' -> (H, V)."""
    h, v = procs.split("x")
    return int(h), int(v)


def mode_name(sync):
    return "synchronized" if sync else "non-synchronized"


def problems_of(frame):
    """The problems (grid sizes) in a table, in natural order."""
    return sorted(set(frame["problem"]), key=natural_key)


def of_setup(frame, setup):
    """The rows of one setup (system, number of clusters)."""
    return frame[(frame["system"] == setup[0]) & (frame["components"] == setup[1])]


def setups_of(frames):
    """The (system, components) pairs present in the given frames."""
    out = set()
    for f in frames:
        if f is None:
            continue
        for _, r in f.iterrows():
            out.add((r["system"], int(r["components"])))
    return out


class Setups:
    """The measured configurations a table's columns show: (system, number of clusters), the
    baseline (one cluster) first, then by number of clusters."""

    def __init__(self, pairs, baseline_system=None, strict=True):
        """strict: a baseline system without one-cluster runs among `pairs` is an error (else
        this subset simply has no baseline)."""
        pairs = set(pairs)
        singles = sorted((s for s, c in pairs if c == 1), key=natural_key)
        if baseline_system is not None and not strict and (baseline_system, 1) not in pairs:
            self.baseline = None
        elif baseline_system is not None:
            if (baseline_system, 1) not in pairs:
                have = ", ".join(singles) or "none"
                raise BadInput(f"--baseline: no one-cluster runs on system '{baseline_system}' "
                               f"(one-cluster systems: {have})")
            self.baseline = (baseline_system, 1)
        elif "local" in singles:
            self.baseline = ("local", 1)
        elif singles:
            self.baseline = (singles[0], 1)
        else:
            self.baseline = None
        base = self.baseline[0] if self.baseline else None
        self.order = sorted(pairs, key=lambda p: (p[1], p[0] != base, natural_key(p[0])))
        self.single_system = len({s for s, _ in pairs}) == 1

    def label(self, setup):
        system, c = setup
        clusters = f"{c} cluster" + ("" if c == 1 else "s")
        return clusters if self.single_system else f"{system}, {clusters}"

    def labels(self):
        return [self.label(s) for s in self.order]
