#!/usr/bin/python3
"""SMPI against the on-host emulation: the one-way time per message size that mcb-links measured
across clusters in both, side by side with the relative difference (docs/smpi.md).

  /usr/bin/python3 analysis/smpi_links.py --emulation EMU.jsonl --smpi SMPI.jsonl \\
      [--tolerance 0.05] [--csv OUT.csv]
  /usr/bin/python3 analysis/smpi_links.py --model 1ms,12.5 --smpi SMPI.jsonl

The last mcb-links record of each file is compared; it must be valid. --model LATENCY,MB/s
compares with the time the emulation books, latency + N / bandwidth, instead of a measured
emulation. Prints one line per size and AGREE or DISAGREE; exit status 0 when every size is
within the tolerance, 1 when not, 2 for bad input (an invalid or missing record, sizes that
differ).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcb_analysis import cli  # noqa: E402
from mcb_analysis.inputs import read_records  # noqa: E402

PROG = "smpi_links.py"


def one_way(path, option):
    """{bytes: mean one-way seconds} of the cross-cluster class of the last valid record."""
    records = [r for r in read_records(path) if r.get("app") == "links"]
    if not records:
        raise cli.BadInput(f"{option}: '{path}': no mcb-links record")
    record = records[-1]
    if record.get("status") != "valid":
        raise cli.BadInput(f"{option}: '{path}': the last mcb-links record is "
                           f"{record.get('status')}, not valid")
    cross = record["result"]["classes"].get("cross_cluster")
    if cross is None:
        raise cli.BadInput(f"{option}: '{path}': the run has no cross-cluster pair")
    return record, {p["bytes"]: p["avg"] for p in cross["points"]}


def main(argv):
    p = cli.parser(PROG, __doc__)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--emulation", metavar="FILE", help="records of the emulation")
    which.add_argument("--model", metavar="LATENCY,MB/s",
                       help="the emulation's booking, e.g. 0.001,12.5 (seconds, MB/s)")
    p.add_argument("--smpi", required=True, metavar="FILE", help="records of the SMPI run")
    p.add_argument("--tolerance", type=float, default=0.05,
                   help="largest relative difference that agrees (default 0.05)")
    p.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    args = p.parse_args(argv)
    if not 0 < args.tolerance < 1:
        raise cli.BadInput(f"--tolerance: '{args.tolerance}' is not between 0 and 1")
    smpi_record, smpi = one_way(args.smpi, "--smpi")
    if args.emulation:
        emu_record, emu = one_way(args.emulation, "--emulation")
        emu_name = emu_record["config"]["system"]
    else:
        try:
            latency, mbytes = (float(x) for x in args.model.split(","))
        except ValueError:
            raise cli.BadInput(f"--model: '{args.model}' is not LATENCY,MB/s (e.g. 0.001,12.5)")
        if latency < 0 or mbytes <= 0:
            raise cli.BadInput(f"--model: '{args.model}' needs latency >= 0 and MB/s > 0")
        emu_name = f"model {latency * 1e3:g} ms + N / {mbytes:g} MB/s"
        emu = {size: latency + size / (mbytes * 1e6) for size in smpi}
    if sorted(emu) != sorted(smpi):
        raise cli.BadInput(f"--smpi: sizes {sorted(smpi)} differ from the emulation's {sorted(emu)}")
    print(f"# emulation: {emu_name}; smpi: {smpi_record['config']['system']}"
          f" (SimGrid {smpi_record['env'].get('simgrid')})")
    print(f"{'bytes':>9} {'emulation us':>14} {'smpi us':>14} {'difference':>11}")
    rows = ["bytes,emulation_s,smpi_s,relative_difference"]
    worst = 0.0
    for size in sorted(emu):
        diff = (smpi[size] - emu[size]) / emu[size]
        worst = max(worst, abs(diff))
        print(f"{size:>9} {emu[size] * 1e6:>14.2f} {smpi[size] * 1e6:>14.2f} {diff * 100:>10.2f}%")
        rows.append(f"{size},{emu[size]:.9g},{smpi[size]:.9g},{diff:.6f}")
    if args.csv:
        cli.write_atomically(args.csv, "\n".join(rows) + "\n")
    agree = worst <= args.tolerance
    print(f"{'AGREE' if agree else 'DISAGREE'}  largest difference {worst * 100:.2f}% "
          f"(tolerance {args.tolerance * 100:g}%)")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(cli.run(PROG, main))
