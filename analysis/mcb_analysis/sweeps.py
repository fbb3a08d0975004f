"""Simulator sweeps (simulator/README.md, written by mcb-sim): sweep.csv, one row per arrival rate
of each curve with the saturation point marked, and sweep.json with the configuration and env."""

import os

from .cli import BadInput
from .inputs import SWEEP_SCHEMA, Source, natural_key, read_csv, read_json

SWEEP_COLUMNS = ["policy", "placement", "rule", "queue", "rate", "offered_utilization",
                 "replications", "response_mean", "response_ci95_half_width",
                 "gross_utilization", "net_utilization", "measured_completed", "saturated",
                 "saturation_point"]
SWEEP_NUMBERS = ["rate", "offered_utilization", "replications", "response_mean",
                 "response_ci95_half_width", "gross_utilization", "net_utilization",
                 "measured_completed", "saturated"]
TEXT = ["policy", "placement", "rule", "queue", "saturation_point"]

POLICY_ORDER = ["ls", "lp", "gs"]          # the paper's Figure 5, top to bottom
RULE_ORDER = ["no", "co", "rco", "fco"]
MIX_ORDER = ["poisson", "ensflow", "mixed"]  # the paper's Figure 5, left to right


def order_key(order):
    return lambda name: (order.index(name) if name in order else len(order), natural_key(name))


class Sweep:
    """One sweep folder: its rows, the mix it simulated, its configuration and provenance."""

    def __init__(self, path):
        if os.path.isdir(path):
            csv = os.path.join(path, "sweep.csv")
            doc = os.path.join(path, "sweep.json")
        else:
            csv = path
            doc = os.path.join(os.path.dirname(path) or ".", "sweep.json")
        if not os.path.exists(csv):
            raise BadInput(f"--sweep: '{path}' holds no sweep.csv")
        self.rows, self.csv_source = read_csv(csv, SWEEP_COLUMNS, numeric=SWEEP_NUMBERS,
                                              strings=TEXT)
        for i, r in self.rows.iterrows():
            if r["saturated"] not in (0, 1):
                raise BadInput(f"{csv}:{i + 2}: column saturated: '{r['saturated']}' is not 0 "
                               "or 1")
            if r["saturation_point"] not in ("", "last_stable", "first_saturated"):
                raise BadInput(f"{csv}:{i + 2}: column saturation_point: "
                               f"'{r['saturation_point']}' is not last_stable or first_saturated")
        self.doc, self.json_source = read_json(doc, required=["config", "env"],
                                               schema=SWEEP_SCHEMA)
        config = self.doc["config"]
        workload = config.get("workload") or {}
        if workload.get("kind") == "synthetic":
            mix = str(workload.get("mix", ""))
        else:
            mix = str(workload.get("trace", ""))
        if not mix:
            raise BadInput(f"{doc}: config.workload names no mix or trace")
        base = os.path.basename(mix)
        self.mix = os.path.splitext(base)[0] if base != mix or "." in base else mix
        self.path = os.path.abspath(os.path.dirname(csv) or ".")
        self.sources = [self.csv_source, self.json_source]
        self.tables = []
        tables = config.get("tables") or {}
        for f in str(tables.get("files", "")).split(","):
            found = _find(f.strip())
            if found:
                self.tables.append(Source(found))
                self.sources.append(self.tables[-1])

    def chosen_systems(self):
        chosen = ((self.doc["config"].get("tables") or {}).get("chosen") or {})
        return sorted({v.get("system", "?") for v in chosen.values()}, key=natural_key)

    def clusters(self):
        sizes = ((self.doc["config"].get("clusters") or {}).get("sizes") or [])
        if sizes and all(s == sizes[0] for s in sizes):
            return f"{len(sizes)}x{sizes[0]}"
        return ",".join(str(s) for s in sizes)

    def provenance(self):
        c = self.doc["config"]
        env = self.doc.get("env") or {}
        w = c.get("workload") or {}
        t = c.get("tables") or {}
        return {
            "folder": self.path,
            "mix": self.mix,
            "workload": {k: w.get(k) for k in ("kind", "mix", "trace", "apps", "jobs")
                         if k in w},
            "clusters": self.clusters(),
            "policies": c.get("policy"), "rules": c.get("rule"),
            "placement": c.get("placement"), "queue": c.get("queue"),
            "tables": {"files": t.get("files"), "statistic": t.get("statistic"),
                       "chosen": t.get("chosen"),
                       "sha256": [s.sha256 for s in self.tables]},
            "seeds": self.doc.get("seeds"),
            "replications": c.get("replications"),
            "warmup_jobs": c.get("warmup_jobs"),
            "saturation_backlog": c.get("saturation_backlog"),
            "points": len(self.rows),
            "env": {k: env.get(k) for k in ("host", "date", "revision", "command_line")},
        }


def _find(path):
    """A table file named in sweep.json: as given (absolute, or relative to where the
    analysis runs), else relative to the repository (mcb-sim run from its top)."""
    if not path:
        return None
    if os.path.exists(path):
        return path
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    candidate = os.path.join(root, path)
    return candidate if not os.path.isabs(path) and os.path.exists(candidate) else None


class Curve:
    """One response-time curve: policy, rule (and placement/queue), its points by rate."""

    def __init__(self, key, frame):
        self.policy, self.placement, self.rule, self.queue = key
        frame = frame.sort_values("rate")
        self.gross = list(frame["gross_utilization"])
        self.net = list(frame["net_utilization"])
        self.response = list(frame["response_mean"])
        marks = list(frame["saturation_point"])
        self.first_saturated = marks.index("first_saturated") if "first_saturated" in marks \
            else None
        self.last_stable = marks.index("last_stable") if "last_stable" in marks else None
        if self.first_saturated is None:
            self.last_stable = len(marks) - 1  # nothing saturated: the whole curve is stable
        # Stable points: before the first saturated one.
        self.stable = [i for i in range(len(marks))
                       if self.first_saturated is None or i < self.first_saturated]

    @property
    def scheduler(self):
        """Everything but the co-allocation rule: (policy, placement, queue), a row of
        Figure 5."""
        return (self.policy, self.placement, self.queue)

    def max_stable(self, which="gross"):
        xs = self.gross if which == "gross" else self.net
        return xs[self.last_stable] if self.last_stable is not None else None


def load(paths):
    sweeps = [Sweep(p) for p in paths]
    curves = {}
    for s in sweeps:
        for key, frame in s.rows.groupby(["policy", "placement", "rule", "queue"]):
            if (s.mix, key) in curves:
                raise BadInput(f"{s.csv_source.path}: curve {'/'.join(key)} of mix {s.mix} "
                               "is also in another sweep given")
            curves[(s.mix, key)] = Curve(key, frame)
    return sweeps, curves
