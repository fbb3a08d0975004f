#!/usr/bin/python3
"""Seed 003's study statements over several seeds: each statement's value per study folder, and
its mean with a 95% interval over them, so that a reader sees which statements are robust.

    /usr/bin/python3 analysis/batchgrid_seeds.py STUDY_DIR STUDY_DIR... [--output FILE]

Each STUDY_DIR is an mcb-batchgrid study (study.csv, study.json) of the same setting with its own
--seed. Writes a Markdown table (default: standard output): per statement the values, the mean
± 95% half-width (Student t over the folders) and "robust" when every folder agrees on the
statement's side (the sign of a gain, or the order the statement claims).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))

from batchgrid_figures import load_valid, per_experiment, summary  # noqa: E402
from mcb_analysis import cli  # noqa: E402
from mcb_analysis.fig5_claims import interval  # noqa: E402

PROG = "batchgrid_seeds.py"


def gain(frame):
    """Gain of the mean throughputs (%), the way Figure 6 compares groups."""
    if frame.empty:
        return float("nan")
    return 100 * (frame.multi_days_per_day.mean() / frame.single_days_per_day.mean() - 1)


def statements(frame):
    """(name, value, holds) per statement of the README for one study folder."""
    ours, _, gains_by_size = summary(frame)
    one = per_experiment(frame)
    rows = [
        ("wait reduction in the largest queue (%), paper 60", ours["wait_reduction_pct"],
         ours["wait_reduction_pct"] > 0),
        ("increase of the mean RAR (%), paper 12", ours["rar_increase_pct"],
         ours["rar_increase_pct"] > 0),
    ]
    for bw in (10, 100, 1000):
        g = frame[frame.bandwidth_mbps == bw].throughput_gain_pct.mean()
        rows.append((f"throughput gain at {bw} Mbit/s (%), paper 55", g, g > 0))
    for size, g in gains_by_size.items():
        rows.append((f"gain at 100 Mbit/s, largest queue {int(size)} (%), paper >= 8", g, g >= 8))
    at10 = frame[frame.bandwidth_mbps == 10]
    for size in (256, 512):
        g = gain(at10[at10.largest_size == size])
        rows.append((f"gain at 10 Mbit/s, largest queue {size} (%): gains too", g, g > 0))
    at100 = frame[frame.bandwidth_mbps == 100]
    median = at100.mean_queue_size.median()
    small = gain(at100[at100.mean_queue_size <= median])
    large = gain(at100[at100.mean_queue_size > median])
    rows.append(("gain, small minus large mean queue size (points): small gain more",
                 small - large, small > large))
    largest = at100.disciplines.str.split("/").combine(
        at100.queue_sizes.str.split("/"),
        lambda d, s: d[max(range(len(s)), key=lambda i: int(s[i]))])
    for discipline in ("fcfs", "easy", "cons"):
        g = gain(at100[largest == discipline])
        rows.append((f"gain at 100 Mbit/s, largest queue {discipline} (%)", g, g > 0))
    # Figure 5(b): RAR against the multiple request on the largest queue, saturating: the rise
    # over the upper half of the requests against that over the lower half.
    by_request = one.groupby("largest_request").multi_rar.mean().sort_index()
    if len(by_request) >= 3:
        mid = by_request.index[len(by_request) // 2]
        lower = by_request.loc[mid] - by_request.iloc[0]
        upper = by_request.iloc[-1] - by_request.loc[mid]
        rows.append(("RAR rise, upper over lower half of the requests: below 1 saturates",
                     upper / lower if lower else float("nan"), upper < lower))
    return rows


def table(folders):
    per = [statements(load_valid(f)[0]) for f in folders]
    names = [name for name, _, _ in per[0]]
    lines = ["| statement | " + " | ".join(os.path.basename(os.path.normpath(f)) for f in folders)
             + " | mean ± 95% | robust |", "|---|" + "---|" * len(folders) + "---|---|"]
    for k, name in enumerate(names):
        values = [p[k][1] for p in per]
        held = [p[k][2] for p in per]
        mean, half = interval(values)
        verdict = "yes" if all(held) else ("no: fails in every folder" if not any(held)
                                           else f"no: holds in {sum(held)} of {len(held)}")
        cells = " | ".join(f"{v:.3g}" for v in values)
        lines.append(f"| {name} | {cells} | {mean:.3g} ± {half:.2g} | {verdict} |")
    return "\n".join(lines) + "\n"


def main(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("studies", nargs="+", metavar="STUDY_DIR")
    p.add_argument("--output", metavar="FILE")
    args = p.parse_args(argv)
    text = table(args.studies)
    if args.output:
        cli.write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(PROG, main))
