#!/usr/bin/python3
"""Seed 003's Figures 4-7 from an mcb-batchgrid study folder, beside the paper's numbers.

    /usr/bin/python3 analysis/batchgrid_figures.py STUDY_DIR [--output DIR]

Reads study.csv and study.json (mcb-batchgrid study) and writes into --output (default
STUDY_DIR): fig4-waits.png, fig5-rar.png, fig6-throughput.png, fig7-gains.png and batchgrid.md
(the paper's averages beside ours, per largest queue size, and the study's verdict).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas or matplotlib

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from mcb_analysis import cli  # noqa: E402
from mcb_analysis.inputs import BadInput, read_csv, read_json  # noqa: E402

PROG = "batchgrid_figures.py"
NUMERIC = ["experiment", "bandwidth_mbps", "largest_size", "request", "largest_request",
           "request_ratio", "mean_queue_size", "mean_request", "single_wait", "multi_wait",
           "single_rar", "multi_rar", "single_days_per_day", "multi_days_per_day",
           "throughput_gain_pct"]
# Seed 003, section 4.2 (the averages its text states).
PAPER = {
    "wait_reduction_pct": 60.0,
    "rar_increase_pct": 12.0,
    "throughput_gain_pct": 55.0,
    "min_gain_by_largest_size_pct": 8.0,
}


def load(study):
    frame, _ = read_csv(os.path.join(study, "study.csv"),
                        NUMERIC + ["queue_sizes", "disciplines", "largest_mix"],
                        numeric=NUMERIC, strings=("throughput_gain_pct",))
    meta, _ = read_json(os.path.join(study, "study.json"), ["verdict", "config"],
                        schema="mcb-batchgrid-study/1")
    return frame, meta


def load_valid(study):
    """load(), refusing a study whose verdict is not VALID: invalid runs feed no table."""
    frame, meta = load(study)
    if meta["verdict"] != "VALID":
        raise BadInput(f"{study}/study.json: verdict {meta['verdict']}; invalid runs feed no table")
    return frame, meta


def per_experiment(frame):
    """One row per experiment (waits and RAR do not depend on the bandwidth)."""
    one = frame[frame.bandwidth_mbps == frame.bandwidth_mbps.min()].copy()
    # An experiment whose single execution never waited has no reduction to state (NaN).
    waited = one.single_wait.where(one.single_wait > 0)
    one["wait_reduction_pct"] = 100 * (one.single_wait - one.multi_wait) / waited
    # Figure 4(b)'s ratio: the multiple batch request on the largest queue over its size (the
    # single request is the best schedule there, so its ratio hardly varies with the grid).
    one["largest_ratio"] = one.largest_request / one.largest_size
    # Share of the horizon the single submission held its processors.
    one["single_active"] = one.single_rar / one.request
    # Short plus narrow share of the largest queue's jobs (largest_mix is s/l/n/w).
    shares = one.largest_mix.str.split("/", expand=True).astype(float)
    one["narrow_short"] = shares[0] + shares[2]
    return one


def summary(frame):
    one = per_experiment(frame)
    at100 = frame[frame.bandwidth_mbps == 100]
    base = at100 if not at100.empty else frame
    by_size = base.groupby("largest_size")[["single_days_per_day", "multi_days_per_day"]].mean()
    gains_by_size = 100 * (by_size.multi_days_per_day / by_size.single_days_per_day - 1)
    ours = {
        "wait_reduction_pct": one.wait_reduction_pct.mean(),
        "rar_increase_pct": 100 * (one.multi_rar.mean() / one.single_rar.mean() - 1),
        "throughput_gain_pct": base.throughput_gain_pct.mean(),
        "min_gain_by_largest_size_pct": gains_by_size.min(),
    }
    return ours, by_size, gains_by_size


def draw(frame, out):
    one = per_experiment(frame)
    paths = []
    sizes = sorted(one.largest_size.unique())
    x = range(len(sizes))

    def bars(ax, single, multi, ylabel):
        ax.bar([i - 0.2 for i in x], single, 0.4, label="single (largest queue)")
        ax.bar([i + 0.2 for i in x], multi, 0.4, label="multiple batch")
        ax.set_xticks(list(x), [str(int(s)) for s in sizes])
        ax.set_xlabel("processors in the largest queue")
        ax.set_ylabel(ylabel)
        ax.legend()

    g = one.groupby("largest_size").mean(numeric_only=True)
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    bars(ax[0], g.single_wait / 3600, g.multi_wait / 3600, "mean wait of the application (h)")
    # The ratios take a few values shared by every size: each size is drawn a little to the
    # side of the true ratio, so that none hides behind another.
    for i, s in enumerate(sizes):
        d = one[one.largest_size == s]
        dodge = 0.008 * (i - (len(sizes) - 1) / 2)
        ax[1].scatter(d.largest_ratio + dodge, d.wait_reduction_pct, label=f"largest {int(s)}",
                      s=14, alpha=0.7)
    ax[1].set_xlabel("request on the largest queue (multiple batch) / its size\n"
                     "(sizes side by side around each ratio)")
    ax[1].set_ylabel("wait reduction by multiple batch (%)")
    ax[1].legend(fontsize=7)
    fig.suptitle("Figure 4: queue waiting times of the application's submissions")
    paths.append(os.path.join(out, "fig4-waits.png"))
    cli.save_png(fig, paths[-1])

    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    bars(ax[0], g.single_rar, g.multi_rar, "RAR (processor-hours per hour)")
    r = one.groupby("largest_request").multi_rar.mean()
    ax[1].plot(r.index, r.values, "o-")
    ax[1].set_xscale("log", base=2)
    ax[1].set_xlabel("application request on the largest queue (multiple batch)")
    ax[1].set_ylabel("RAR, multiple batch")
    fig.suptitle("Figure 5: resource availability rate")
    paths.append(os.path.join(out, "fig5-rar.png"))
    cli.save_png(fig, paths[-1])

    bws = sorted(frame.bandwidth_mbps.unique())
    fig, axes = plt.subplots(1, len(bws), figsize=(5 * len(bws), 4), squeeze=False)
    for ax, bw in zip(axes[0], bws):
        b = frame[frame.bandwidth_mbps == bw].groupby("largest_size").mean(numeric_only=True)
        b = b.reindex(sizes)
        bars(ax, b.single_days_per_day, b.multi_days_per_day, "simulated days per wall-clock day")
        ax.set_title(f"{bw:g} Mbit/s")
    fig.suptitle("Figure 6: application throughput")
    paths.append(os.path.join(out, "fig6-throughput.png"))
    cli.save_png(fig, paths[-1])

    at100 = frame[frame.bandwidth_mbps == 100]
    base = at100 if not at100.empty else frame
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    ax[0].scatter(base.mean_queue_size, base.throughput_gain_pct, s=14)
    ax[0].set_xlabel("mean queue size of the four queues")
    ax[1].scatter(base.mean_request, base.throughput_gain_pct, s=14)
    ax[1].set_xlabel("mean application request on the four queues")
    for a in ax:
        a.axhline(0, color="grey", lw=0.8)
        a.set_ylabel("throughput gain of multiple batch (%)")
    fig.suptitle("Figure 7: gain in simulated days (100 Mbit/s)")
    paths.append(os.path.join(out, "fig7-gains.png"))
    cli.save_png(fig, paths[-1])
    return paths


def evidence(frame, one):
    """Where the averages come from: by Figure 4(b)'s ratio and by the single's active share."""
    at100 = frame[frame.bandwidth_mbps == 100]
    base = at100 if not at100.empty else frame[frame.bandwidth_mbps == frame.bandwidth_mbps.min()]
    one = one.set_index("experiment")
    gain = base.set_index("experiment").throughput_gain_pct
    lines = ["| largest-queue request ratio (multiple) | experiments | wait reduction (%) | "
             "gain (%) |", "|---|---:|---:|---:|"]
    for label, d in one.groupby(one.largest_ratio.round(2)):
        lines.append(f"| {label:.2f} | {len(d)} | {d.wait_reduction_pct.mean():.1f} | "
                     f"{gain.reindex(d.index).mean():.1f} |")
    lines += ["", "| single active share | experiments | single wait (h) | multiple wait (h) | "
              "gain (%) |", "|---|---:|---:|---:|---:|"]
    bins = [0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    for (lo, hi) in zip(bins, bins[1:]):
        d = one[(one.single_active > lo) & (one.single_active <= hi)]
        if d.empty:
            continue
        lines.append(f"| {lo:.1f}-{hi:.1f} | {len(d)} | {d.single_wait.mean() / 3600:.1f} | "
                     f"{d.multi_wait.mean() / 3600:.1f} | {gain.reindex(d.index).mean():.1f} |")
    lines += ["", "| short and narrow share of the largest queue's jobs | experiments | "
              "wait reduction (%) | gain (%) |", "|---|---:|---:|---:|"]
    for (lo, hi) in [(0, 0.4), (0.4, 0.5), (0.5, 0.6), (0.6, 1.0)]:
        d = one[(one.narrow_short > lo) & (one.narrow_short <= hi)]
        if not d.empty:
            lines.append(f"| {lo:.1f}-{hi:.1f} | {len(d)} | {d.wait_reduction_pct.mean():.1f} | "
                         f"{gain.reindex(d.index).mean():.1f} |")
    return lines


def markdown(frame, meta):
    ours, by_size, gains = summary(frame)
    one = per_experiment(frame)
    lines = [f"# Seed 003: multiple batch against the single largest queue",
             "",
             f"{len(one)} experiments, verdict {meta['verdict']}; config "
             f"{', '.join(f'{k} {v}' for k, v in meta['config'].items())}.",
             "",
             "| measure | paper (section 4.2) | this study |",
             "|---|---:|---:|"]
    names = {
        "wait_reduction_pct": "mean reduction of the wait in the largest queue (%)",
        "rar_increase_pct": "increase of the mean RAR (%)",
        "throughput_gain_pct": "mean throughput gain, 100 Mbit/s (%)",
        "min_gain_by_largest_size_pct": "smallest gain of mean throughput per largest size (%)",
    }
    for k, name in names.items():
        lines.append(f"| {name} | {PAPER[k]:.0f} | {ours[k]:.1f} |")
    lines += ["", f"Reduction of the mean waits: "
              f"{100 * (1 - one.multi_wait.mean() / one.single_wait.mean()):.1f}% "
              f"(the row above averages each experiment's reduction).", ""]
    lines += evidence(frame, one)
    lines += ["", "| largest queue | experiments | single days/day | multiple days/day | gain (%) |",
              "|---:|---:|---:|---:|---:|"]
    counts = one.groupby("largest_size").size()
    for s, row in by_size.iterrows():
        lines.append(f"| {int(s)} | {counts.get(s, 0)} | {row.single_days_per_day:.0f} | "
                     f"{row.multi_days_per_day:.0f} | {gains[s]:.1f} |")
    lines += ["", "| bandwidth (Mbit/s) | single days/day | multiple days/day |", "|---:|---:|---:|"]
    for bw, row in frame.groupby("bandwidth_mbps").mean(numeric_only=True).iterrows():
        lines.append(f"| {bw:g} | {row.single_days_per_day:.0f} | {row.multi_days_per_day:.0f} |")
    return "\n".join(lines)


def main(argv):
    p = cli.parser(PROG, __doc__)
    p.add_argument("study", metavar="STUDY_DIR", help="folder written by mcb-batchgrid study")
    p.add_argument("--output", metavar="DIR", help="folder for the figures (default STUDY_DIR)")
    a = p.parse_args(argv)
    out = a.output or a.study
    cli.check_output_dir("--output", out)
    frame, meta = load_valid(a.study)
    os.makedirs(out, exist_ok=True)
    paths = draw(frame, out)
    text = markdown(frame, meta)
    cli.write_atomically(os.path.join(out, "batchgrid.md"), text + "\n")
    print(text)
    print(f"{PROG}: wrote {', '.join(os.path.basename(x) for x in paths)}, batchgrid.md into {out}")
    return 0


if __name__ == "__main__":
    cli.run(PROG, main)
