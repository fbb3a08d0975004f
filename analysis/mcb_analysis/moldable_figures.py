"""Seed 001's comparison of processor allocation methods (sections IV.B, V, VI) from the folder
scripts/study-moldable.sh writes: STUDY/<workload>/<system>/<method>/sweep.csv (mcb-sim sweeps
over the offered net load, same arrivals for every method).

Each sweep is checked against the method and system its folder names (policy, request type,
site selection, placement, rule, speeds) and must have measured jobs at every unsaturated point;
a sweep that fails is INVALID and left out of the table and figures. The table gives each
method's mean response time at each load (`sat` where the run saturated) and the highest gross
utilization it reached unsaturated; the winner of a load is the unsaturated method with the
lowest mean response (ties within 1%: all named).
"""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .cli import BadInput, save_png  # noqa: E402
from .sweeps import Sweep  # noqa: E402

FLAT = 1.25
BY_COUNT = {"2": 1.15, "3": 1.18, "4": 1.21}  # scripts/study-moldable.sh's trace_methods
METHODS = {  # method -> what its sweep must say: policy, request, site selection, placement, rule,
    # the user's bounds on flexible requests (smallest component, most components; 0: none),
    # and the wide-area factor (one number, or by number of clusters)
    "ic": ("ic", "unordered", "idle", "wf", "no", 1, 0, FLAT),
    "grid-idle": ("grid", "unordered", "idle", "wf", "no", 1, 0, FLAT),
    "grid-power": ("grid", "unordered", "power", "wf", "no", 1, 0, FLAT),
    "co-wf": ("gs", "flexible", "idle", "wf", "co", 1, 0, FLAT),
    "co-fcm": ("gs", "flexible", "idle", "fcm", "co", 1, 0, FLAT),
    "co-wf-bounded": ("gs", "flexible", "idle", "wf", "co", 8, 2, FLAT),
    "adaptive-idle": ("grid", "moldable", "idle", "wf", "no", 1, 0, FLAT),
    "adaptive-power": ("grid", "moldable", "power", "wf", "no", 1, 0, FLAT),
    "co-wf-bycount": ("gs", "flexible", "idle", "wf", "co", 1, 0, BY_COUNT),
    "co-fcm-bycount": ("gs", "flexible", "idle", "fcm", "co", 1, 0, BY_COUNT),
}
SYSTEMS = {  # system -> (speeds, None: all 1; relative arrival rates by home site, None: by size)
    "homogeneous": (None, None),
    "heterogeneous": ([1, 1, 0.5, 0.5], None),
    "unequal-load": (None, [4, 2, 1, 1]),
}
TIE = 0.01


def _check(sweep, method, system):
    """Empty if the sweep is what its folder says; else why not."""
    c = sweep.doc["config"]
    got = (",".join(c.get("policy") or []), c.get("request"), c.get("site_selection"),
           ",".join(c.get("placement") or []), ",".join(c.get("rule") or []),
           c.get("flex_min_component", 1), c.get("flex_max_components", 0),
           c.get("coalloc_factor", FLAT))
    if got != METHODS[method]:
        return f"config {got} is not {method}'s {METHODS[method]}"
    speeds = (c.get("clusters") or {}).get("speeds") or []
    want, rates = SYSTEMS[system]
    if (want is None and any(s != 1 for s in speeds)) or (want is not None and speeds != want):
        return f"speeds {speeds} are not the {system} system's"
    if c.get("site_rates") != rates:
        return f"site rates {c.get('site_rates')} are not the {system} system's"
    rows = sweep.rows
    empty = rows[(rows["saturated"] == 0) & (rows["measured_completed"] <= 0)]
    if len(empty):
        return f"{len(empty)} unsaturated point(s) without measured jobs"
    return ""


def load(study):
    """All valid sweeps as one frame, and the verdict of every sweep found."""
    if not os.path.isdir(study):
        raise BadInput(f"STUDY_DIR: '{study}' is not a folder")
    frames, verdicts = [], []
    for workload in sorted(os.listdir(study)):
        for system in SYSTEMS:
            for method in METHODS:
                folder = os.path.join(study, workload, system, method)
                if not os.path.isdir(folder):
                    continue
                sweep = Sweep(folder)
                why = _check(sweep, method, system)
                verdicts.append((workload, system, method, "INVALID: " + why if why else "VALID"))
                if why:
                    continue
                f = sweep.rows[["offered_utilization", "response_mean", "response_ci95_half_width",
                                "gross_utilization", "net_utilization", "saturated"]].copy()
                f.insert(0, "method", method)
                f.insert(0, "system", system)
                f.insert(0, "workload", workload)
                frames.append(f)
    if not frames:
        raise BadInput(f"STUDY_DIR: '{study}' holds no valid <workload>/<system>/<method> sweep")
    frame = pd.concat(frames, ignore_index=True)
    frame["offered_utilization"] = frame["offered_utilization"].round(6)
    return frame, verdicts


def winners(frame):
    """Per workload, system and load: the unsaturated method(s) with the lowest mean response."""
    out = []
    for (w, s, u), g in frame.groupby(["workload", "system", "offered_utilization"], sort=True):
        ok = g[g["saturated"] == 0]
        if ok.empty:
            out.append({"workload": w, "system": s, "offered_utilization": u, "winner": "none",
                        "response_mean": float("nan")})
            continue
        best = ok["response_mean"].min()
        names = ok[ok["response_mean"] <= best * (1 + TIE)]["method"].tolist()
        out.append({"workload": w, "system": s, "offered_utilization": u,
                    "winner": "+".join(names), "response_mean": best})
    return pd.DataFrame(out)



def draw(frame, out):
    """One figure per workload and system: response time and gross utilization against load."""
    paths = []
    for (w, s), g in frame.groupby(["workload", "system"], sort=True):
        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
        for method in METHODS:
            m = g[(g["method"] == method) & (g["saturated"] == 0)]
            if m.empty:
                continue
            style = "--" if method.startswith("co-") else ":" if method == "ic" else "-"
            left.plot(m["offered_utilization"], m["response_mean"], style, marker="o",
                      label=method)
            right.plot(m["offered_utilization"], m["gross_utilization"], style, marker="o",
                       label=method)
        left.set_yscale("log")
        left.set_xlabel("offered net load")
        left.set_ylabel("mean response time (s), unsaturated points")
        right.set_xlabel("offered net load")
        right.set_ylabel("gross utilization")
        left.set_title(f"{w}, {s}: response time")
        right.set_title(f"{w}, {s}: utilization")
        right.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=8)
        path = os.path.join(out, f"moldable-{w}-{s}.png")
        save_png(fig, path)
        paths.append(path)
    return paths


def _cell(r):
    return "sat" if r["saturated"] else f"{r['response_mean']:.0f}"


def markdown(frame, verdicts):
    lines = ["# Allocation methods against load (seed 001 IV.B, V, VI)", "",
             "Mean response time (s) per offered net load; `sat`: the run saturated. "
             "`held to`: the highest load run unsaturated; `max util`: the highest gross utilization "
             "reached unsaturated.", ""]
    loads = sorted(frame["offered_utilization"].unique())
    win = winners(frame)
    for (w, s), g in frame.groupby(["workload", "system"], sort=True):
        lines += [f"## {w}, {s}", "",
                  "| method | " + " | ".join(f"{u:g}" for u in loads) + " | held to | max util |",
                  "|---|" + "---|" * (len(loads) + 2)]
        for method in METHODS:
            m = g[g["method"] == method].set_index("offered_utilization")
            if m.empty:
                continue
            cells = [_cell(m.loc[u]) if u in m.index else "" for u in loads]
            ok = m[m["saturated"] == 0]
            top = f"{ok['gross_utilization'].max():.3f}" if len(ok) else "-"
            held = f"{ok.index.max():g}" if len(ok) else "-"
            lines.append(f"| {method} | " + " | ".join(cells) + f" | {held} | {top} |")
        ws = win[(win["workload"] == w) & (win["system"] == s)]
        lines += ["", "Winner per load: " + "; ".join(
            f"{r.offered_utilization:g}: {r.winner}" for r in ws.itertuples()), ""]
    lines += ["## Sweeps", ""] + [f"- {w}/{s}/{m}: {v}" for w, s, m, v in verdicts]
    return "\n".join(lines)
