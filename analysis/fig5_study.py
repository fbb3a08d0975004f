#!/usr/bin/python3
"""The DAS-2 paper's Figure 5 as a study: every curve's saturation point located with a 95%
confidence interval, and every conclusion of the paper's sections 5 and 6 evaluated as held or
failed (mcb_analysis/fig5_claims.py).

  /usr/bin/python3 analysis/fig5_study.py --mcb-sim build/bin/mcb-sim --tables calibration/das2 \\
      --output DIR [--jobs N --replications R --resolution D --knee seconds:S|response:F|backlog \\
      ...] \\
      [-- extra mcb-sim options, e.g. --arrival-pass no]

A curve is (job mix, policy, rule) on 4 x 32 with Worst Fit and FCFS. For each replication (its
own seed, shared by every curve: common random numbers) the saturation point is found by
bisection on the offered net utilization between --range's ends until the bracket is at most
--resolution wide. The point is the gross utilization measured at the bracket's lower end (the
last load below saturation), as the paper plots response time against gross utilization.
Saturation (--knee):
  seconds:S   the mean response time reaches S seconds (default 20000): the paper reads the
              point off plots of response time in seconds, "where the response-time curves rise
              very steeply" (simulator/README.md argues the threshold);
  response:F  the mean response time reaches F times the curve's response at the light load
              --base;
  backlog     the run is unstable: mcb-sim's own test (waiting jobs grow, or the run stops at
              its jobs-in-system limit).
A run that mcb-sim stopped early (too many jobs in the system) is saturated under every reading.
The interval of a curve's point is Student t over replications; a claim compares two curves by
the paired differences of their points (same seeds), so it says whether a difference is larger
than its interval.

Writes DIR/knees.csv (one row per curve and replication), DIR/saturation.csv (per curve: mean,
ci95 half-width), DIR/claims.md and DIR/claims.json, DIR/study.json (configuration, time).
"""

import concurrent.futures
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis.requirements import require  # noqa: E402

require(os.path.basename(__file__))  # one line, not a traceback, without pandas or matplotlib

from mcb_analysis import cli  # noqa: E402
from mcb_analysis import fig5_claims  # noqa: E402
from mcb_analysis.inputs import SUMMARY_SCHEMA, read_json  # noqa: E402

PROG = "fig5_study.py"
MIXES = ("poisson", "ensflow", "mixed")
POLICIES = ("gs", "ls", "lp")
RULES = ("no", "co", "rco", "fco")


def parse(argv):
    extra = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1:]
    p = cli.parser(PROG, __doc__)
    p.add_argument("--mcb-sim", required=True, metavar="PATH", help="the mcb-sim program")
    p.add_argument("--tables", required=True, metavar="DIR", help="runtime tables (Tables 4, 5)")
    p.add_argument("--output", required=True, metavar="DIR", help="folder for the outputs")
    p.add_argument("--jobs", type=int, default=20000, help="jobs per run (default 20000)")
    p.add_argument("--replications", type=int, default=10, help="seeds per curve (default 10)")
    p.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    p.add_argument("--resolution", type=float, default=0.005,
                   help="width of the final bracket in offered net utilization (default 0.005)")
    p.add_argument("--range", default="0.4:0.98", metavar="LO:HI",
                   help="offered net utilization searched (default 0.4:0.98)")
    p.add_argument("--base", type=float, default=0.3,
                   help="light offered net load: the response reference and the gross-net "
                        "comparison of section 6 (default 0.3)")
    p.add_argument("--knee", default="seconds:20000", metavar="DEF",
                   help="saturation: seconds:S, response:F or backlog (default seconds:20000)")
    p.add_argument("--loss-at", default="knee", choices=("knee", "base"),
                   help="where section 6's gross - net is compared: at the saturation point "
                        "(the paper compares the graphs horizontally, at a response time) or "
                        "at the light load --base (the same offered load) (default knee)")
    p.add_argument("--workers", type=int, default=2, help="runs at a time (default 2)")
    p.add_argument("--mixes", default=",".join(MIXES))
    p.add_argument("--policies", default=",".join(POLICIES))
    p.add_argument("--rules", default=",".join(RULES))
    args = p.parse_args(argv)
    args.extra = extra
    try:
        lo, hi = (float(x) for x in args.range.split(":"))
    except ValueError:
        raise cli.BadInput(f"--range: '{args.range}' is not LO:HI")
    if not 0 < args.base < lo < hi:
        raise cli.BadInput(f"--range: '{args.range}' must lie above --base {args.base}")
    args.lo, args.hi = lo, hi
    args.factor, args.seconds = parse_knee(args.knee)
    if args.replications < 2:
        raise cli.BadInput(f"--replications: '{args.replications}' must be >= 2 (intervals)")
    if not 0 < args.resolution < hi - lo:
        raise cli.BadInput(f"--resolution: '{args.resolution}' must be within the range")
    if not os.access(args.mcb_sim, os.X_OK):
        raise cli.BadInput(f"--mcb-sim: '{args.mcb_sim}' is not an executable program")
    cli.check_output_dir("--output", args.output)
    return args


def parse_knee(text):
    """--knee as (factor, seconds): response:F gives (F, None), seconds:S (None, S), backlog
    (None, None)."""
    if text == "backlog":
        return None, None
    kind, _, value = text.partition(":")
    if kind not in ("response", "seconds"):
        raise cli.BadInput(f"--knee: '{text}' is not seconds:S, response:F or backlog")
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if kind == "response":
        if not number > 1 or math.isinf(number):
            raise cli.BadInput(f"--knee: '{text}' needs a factor > 1 (response:5)")
        return number, None
    if not 0 < number < 1e12:
        raise cli.BadInput(f"--knee: '{text}' needs a response in seconds > 0 (seconds:20000)")
    return None, number


def run_point(args, mix, policy, rule, seed, load, scratch):
    """One mcb-sim run; returns its summary's result."""
    out = tempfile.mkdtemp(dir=scratch)
    cmd = [args.mcb_sim, "--workload", mix, "--tables", args.tables, "--policy", policy,
           "--rule", rule, "--utilization", repr(load), "--jobs", str(args.jobs),
           "--seed", str(seed), "--no-jobs-csv", "--output", out] + args.extra
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise RuntimeError(f"{args.mcb_sim}: {e}") from e
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip()}")
    try:
        summary, _ = read_json(os.path.join(out, "summary.json"), required=("result",),
                               schema=SUMMARY_SCHEMA)
    except cli.BadInput as e:
        raise RuntimeError(str(e)) from e
    result = summary["result"]
    os.unlink(os.path.join(out, "summary.json"))
    os.rmdir(out)
    return result


def saturated(args, result, reference):
    """Whether one run is past the saturation point under --knee (see the module's text)."""
    if result["stopped_early"]:
        return True
    if args.factor is None and args.seconds is None:
        return bool(result["saturated"])
    mean = result["response"]["mean"]
    threshold = args.seconds if args.seconds is not None else args.factor * reference
    return mean is None or mean >= threshold


def locate(args, mix, policy, rule, replication, scratch):
    """Bisection for one curve and one seed."""
    seed = args.seed + replication
    base = run_point(args, mix, policy, rule, seed, args.base, scratch)
    reference = base["response"]["mean"]
    runs = 1
    lo, hi = args.lo, args.hi
    lo_result = run_point(args, mix, policy, rule, seed, lo, scratch)
    hi_result = run_point(args, mix, policy, rule, seed, hi, scratch)
    runs += 2
    row = {"mix": mix, "policy": policy, "rule": rule, "replication": replication, "seed": seed,
           "base_gross": base["utilization"]["gross"], "base_net": base["utilization"]["net"],
           "base_response": reference, "censored": ""}
    if saturated(args, lo_result, reference):
        row["censored"] = "below range"
        hi, hi_result = lo, lo_result
    elif not saturated(args, hi_result, reference):
        row["censored"] = "above range"
        lo, lo_result = hi, hi_result
    else:
        while hi - lo > args.resolution:
            mid = (lo + hi) / 2
            result = run_point(args, mix, policy, rule, seed, mid, scratch)
            runs += 1
            if saturated(args, result, reference):
                hi, hi_result = mid, result
            else:
                lo, lo_result = mid, result
    row.update({"offered_low": lo, "offered_high": hi,
                "knee_gross": lo_result["utilization"]["gross"],
                "knee_net": lo_result["utilization"]["net"],
                "knee_response": lo_result["response"]["mean"], "runs": runs})
    source = ("knee_gross", "knee_net") if args.loss_at == "knee" else ("base_gross", "base_net")
    row["loss"] = row[source[0]] - row[source[1]]
    return row


def main(argv):
    args = parse(argv)
    start = time.monotonic()
    curves = [(m, p, r) for m in args.mixes.split(",") for p in args.policies.split(",")
              for r in args.rules.split(",")]
    created = not os.path.exists(args.output)
    os.makedirs(args.output, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix=".runs-", dir=args.output)
    rows = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.workers) as pool:
            futures = [pool.submit(locate, args, m, p, r, k, scratch)
                       for (m, p, r) in curves for k in range(args.replications)]
            for f in futures:
                rows.append(f.result())
    except (RuntimeError, OSError) as e:  # a run failed: no outputs, one line
        print(f"{PROG}: error: {' '.join(str(e).split())}", file=sys.stderr)
        shutil.rmtree(scratch, ignore_errors=True)
        if created and not os.listdir(args.output):
            os.rmdir(args.output)
        return 1
    shutil.rmtree(scratch, ignore_errors=True)
    elapsed = time.monotonic() - start
    points = fig5_claims.points_of(rows)
    claims = fig5_claims.evaluate(rows, points)
    write_outputs(args, rows, points, claims, elapsed)
    held = sum(1 for c in claims if c["held"])
    print(f"{PROG}: {len(curves)} curves x {args.replications} replications, "
          f"{sum(r['runs'] for r in rows)} runs in {elapsed:.0f} s; {held} of {len(claims)} "
          f"claims held; {os.path.join(args.output, 'claims.md')}")
    print(fig5_claims.markdown(claims, points, describe(args, elapsed)))
    return 0


def describe(args, elapsed):
    loss = ("at the saturation point" if args.loss_at == "knee"
            else f"at offered load {args.base}")
    if args.seconds is not None:
        knee = "the mean response time reaches %g s" % args.seconds
    elif args.factor is not None:
        knee = ("the mean response time reaches %g x its value at offered load %g" %
                (args.factor, args.base))
    else:
        knee = "mcb-sim's backlog test"
    extra = (" with `" + " ".join(args.extra) + "`") if args.extra else ""
    return (f"Saturation point: the gross utilization of the last offered load before {knee}; "
            f"located by bisection to {args.resolution} in offered net utilization within "
            f"{args.lo}-{args.hi}, {args.jobs} jobs per run, {args.replications} replications "
            f"(seeds {args.seed}..{args.seed + args.replications - 1}){extra}; section 6's gross - net "
            f"{loss}; {elapsed:.0f} s.")


def write_outputs(args, rows, points, claims, elapsed):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0].keys()), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    cli.write_atomically(os.path.join(args.output, "knees.csv"), buf.getvalue())
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["mix", "policy", "rule", "saturation_gross", "ci95_half_width", "replications",
                "censored"])
    for key, p in sorted(points.items()):
        w.writerow(list(key) + ["%.4f" % p["mean"], "%.4f" % p["half"], p["n"], p["censored"]])
    cli.write_atomically(os.path.join(args.output, "saturation.csv"), buf.getvalue())
    text = fig5_claims.markdown(claims, points, describe(args, elapsed))
    cli.write_atomically(os.path.join(args.output, "claims.md"), text)
    cli.write_atomically(os.path.join(args.output, "claims.json"),
                         json.dumps(claims, indent=1) + "\n")
    config = {k: v for k, v in vars(args).items()}
    cli.write_atomically(os.path.join(args.output, "study.json"),
                         json.dumps({"config": config, "seconds": elapsed,
                                     "runs": sum(r["runs"] for r in rows)}, indent=1) + "\n")


if __name__ == "__main__":
    cli.run(PROG, main)
