"""Ensflow figures: the diagnostics of one run (RMSE and spread per analysis, innovation
chi-square and Desroziers consistency, rank histogram) from its record, and the default flow
(SSH and speed) from ensflow_spinup's grid file, and the error growth of twin runs from
ensflow_chaos (one or more flows, comma-separated, labelled with --labels).

    /usr/bin/python3 analysis/ensflow_figures.py diagnostics RUNS.jsonl OUT.png [--run-id ID]
    /usr/bin/python3 analysis/ensflow_figures.py flow GRID.csv OUT.png
    /usr/bin/python3 analysis/ensflow_figures.py chaos A.csv[,B.csv...] OUT.png [--labels "A;B"]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require("ensflow_figures.py")

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from mcb_analysis.cli import BadInput  # noqa: E402
from mcb_analysis.inputs import read_records  # noqa: E402


def fail(message):
    print(f"ensflow_figures: {message}", file=sys.stderr)
    sys.exit(2)


def last_ensflow_record(path, run_id):
    """The last ensflow record of a records file, or run_id's, read by the one records reader
    (schema checked, a torn last line left out with a notice)."""
    try:
        records = read_records(path)
    except BadInput as e:
        fail(str(e))
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    found = None
    for record in records:
        if record.get("app") == "ensflow" and (run_id is None or record.get("run_id") == run_id):
            found = record
    if found is None or "innovations" not in found.get("result", {}):
        fail(f"{path}: no ensflow record with innovation statistics")
    return found


def plot_diagnostics(record, out):
    result = record["result"]
    points = result["diagnostics"]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    ax = axes[0]
    for kind, style in (("forecast", "o-"), ("analysis", "s-"), ("free", "x--")):
        pts = sorted((p["day"], p["rmse"], p["spread"]) for p in points if p["kind"] == kind)
        if not pts:
            continue
        d, r, s = zip(*pts)
        ax.plot(d, r, style, label=f"{kind} RMSE")
        ax.plot(d, s, style, alpha=0.45, label=f"{kind} spread")
    ax.set_yscale("log")
    ax.set_xlabel("day")
    ax.set_ylabel("SSH, m")
    ax.set_title("error and spread per analysis")
    ax.legend(fontsize=7)
    ax = axes[1]
    inn = result["innovations"]
    days = [i["day"] for i in inn]
    ax.plot(days, [i["chi_square"] for i in inn], "o-", label="innovation chi-square")
    ax.plot(days, [i["error_consistency"] for i in inn], "s-", label="Desroziers (R consistency)")
    ax.axhline(1, color="grey", lw=0.8)
    ax.set_xlabel("analysis day")
    ax.set_title("observation-space consistency (1 = consistent)")
    ax.legend(fontsize=7)
    ax = axes[2]
    counts = np.sum([i["rank_histogram"] for i in inn], axis=0)
    bins = len(counts)
    ax.bar(range(bins), counts, color="tab:blue")
    ax.axhline(counts.sum() / bins, color="grey", lw=0.8, label="flat")
    ax.set_xlabel("rank of the observation among the members")
    ax.set_title("rank histogram, all analyses")
    ax.legend(fontsize=7)
    c = record["config"]
    fig.suptitle(f"Ensflow {c['problem']}, {c['filter']} filter, localisation {c['localisation_km']} km, "
                 f"relaxation {c['relaxation']}: {record.get('status', '?').upper()}", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def plot_flow(path, out):
    """The final SSH (eddies), and the time-mean SSH and speed (the gyres and the western
    boundary current) of ensflow_spinup's grid file."""
    grid = read_csv(path, ["i", "j", "x_km", "y_km", "ssh_m", "speed_m_s", "mean_ssh_m", "mean_speed_m_s"])
    g = int(grid["i"].max()) + 1
    ordered = grid.sort_values(["j", "i"])

    def field(column):
        return ordered[column].to_numpy().reshape(g, g)

    extent = [0, grid["x_km"].max() + grid["x_km"].min(), 0, grid["y_km"].max() + grid["y_km"].min()]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.6))
    for ax, column, title in ((axes[0], "ssh_m", "sea-surface height, last day"),
                              (axes[1], "mean_ssh_m", "sea-surface height, time mean")):
        ssh = field(column)
        im = ax.imshow(ssh, origin="lower", extent=extent, cmap="RdBu_r")
        ax.contour(ssh, levels=15, colors="k", linewidths=0.5, origin="lower", extent=extent)
        fig.colorbar(im, ax=ax, label="SSH, m (streamlines in black)")
        ax.set_title(title)
    im = axes[2].imshow(field("mean_speed_m_s"), origin="lower", extent=extent, cmap="viridis")
    fig.colorbar(im, ax=axes[2], label="speed, m/s")
    axes[2].set_title("speed of the time-mean flow")
    for ax in axes:
        ax.set_xlabel("x (east), km")
        ax.set_ylabel("y (north), km")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def read_csv(path, columns):
    try:
        table = pd.read_csv(path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        fail(f"{path}: {e}")
    missing = set(columns) - set(table.columns)
    if missing:
        fail(f"{path}: missing column(s) {', '.join(sorted(missing))}")
    return table


def plot_chaos(paths, labels, out):
    """RMS SSH difference of twin runs (log scale: a chaotic flow grows it exponentially) and
    the energy of the first twin, per flow."""
    paths = paths.split(",")
    labels = labels.split(";") if labels else paths
    if len(labels) != len(paths):
        fail(f"--labels: {len(labels)} label(s) for {len(paths)} file(s)")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for path, label in zip(paths, labels):
        t = read_csv(path, ["day", "rms_ssh_difference_m", "energy", "eddy_kinetic_energy"])
        axes[0].plot(t["day"], t["rms_ssh_difference_m"], label=label)
        axes[1].plot(t["day"], t["energy"], label=label)
    axes[0].set_yscale("log")
    axes[0].set_ylabel("RMS SSH difference of the twins, m")
    axes[0].set_title("twins 1 um apart at day 0")
    axes[1].set_ylabel("energy, m^2/s^2")
    axes[1].set_title("energy of the first twin")
    for ax in axes:
        ax.set_xlabel("day after the spin-up")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["diagnostics", "flow", "chaos"])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--run-id")
    parser.add_argument("--labels", help="chaos: one label per file, separated by semicolons")
    args = parser.parse_args()
    if args.what == "diagnostics":
        plot_diagnostics(last_ensflow_record(args.input, args.run_id), args.output)
    elif args.what == "chaos":
        plot_chaos(args.input, args.labels, args.output)
    else:
        plot_flow(args.input, args.output)


if __name__ == "__main__":
    main()
