"""Tables, figures and the report of the mcb suite (DAS-2 study layouts), and the suite's files
as pandas DataFrames for notebooks (analysis/README.md, "In a notebook"):

    import mcb_analysis as mcb
    records = mcb.load_records("results/main")              # the main job's campaign runs
    probes = mcb.load_records("results/main", probes=True)  # its link probes, apart
    runtimes = mcb.load_tables("results/main/tables")       # mcb-calibrate's runtimes.csv
    sweep = mcb.load_sweep("results/sim/poisson")           # mcb-sim's sweep.csv
    jobs = mcb.load_jobs("results/replay")                  # mcb-sim's jobs.csv
    batsim = mcb.load_schedule("results/replay")            # batsim_jobs.csv
    swf = mcb.load_schedule("results/replay", "swf")        # schedule.swf

Every loader takes a file or the folder that holds it. Bad input raises BadInput, a ValueError;
a missing file or folder raises MissingInput, also a FileNotFoundError.

Runs under Debian's /usr/bin/python3 with python3-matplotlib and python3-pandas (see
analysis/README.md). Importing the package needs neither; the loaders need pandas and say so in
one line when it is missing.
"""

from .cli import BadInput, MissingInput
from .requirements import missing as _missing

__version__ = "1.1.0"

__all__ = ["BadInput", "MissingInput", "load_records", "load_tables", "load_sweep",
           "load_sweep_json", "load_summary", "load_jobs", "load_schedule", "__version__"]


def _frames():
    lacking = _missing()
    if lacking:
        import sys
        raise ImportError(f"mcb_analysis: {sys.executable} lacks {' and '.join(lacking)}; use "
                          "/usr/bin/python3 (Debian's python3-matplotlib and python3-pandas)")
    from . import frames
    return frames


def load_records(path, probes=False):
    """Run records (JSON Lines) as a DataFrame, one row per run, nested fields flattened with
    dots (config.grid, env.host, result.time, ...), the file in column `file`. For a main job's
    results folder (scripts/main-job.sh) the campaign runs, campaign/*/records.jsonl, with the
    campaign's name in column `campaign`; with probes=True its link-probe runs (probe/*.jsonl)
    instead. Any other folder: every *.jsonl under it; a file: that file. Numbers are float64,
    seeds kept exact."""
    return _frames().load_records(path, probes)


def load_tables(path, table="runtimes"):
    """One calibration table (default runtimes.csv) of mcb-calibrate's folder; numbers
    float64."""
    return _frames().load_tables(path, table)


def load_sweep(path):
    """sweep.csv of an mcb-sim sweep: one row per point, typed per column (saturated bool)."""
    return _frames().load_sweep(path)


def load_sweep_json(path):
    """sweep.json of an mcb-sim sweep (config, points, curves, seeds, env) as a dict."""
    return _frames().load_sweep_json(path)


def load_summary(path):
    """summary.json of a one-point mcb-sim run (config, point, result, seeds, env) as a dict."""
    return _frames().load_summary(path)


def load_jobs(path, schedule=False):
    """jobs.csv of a one-point mcb-sim run (one row per job); times float64, sizes int64.
    schedule=True is load_schedule(path), kept for earlier notebooks."""
    if schedule:
        return load_schedule(path)
    return _frames().load_jobs(path)


def load_schedule(path, form=None):
    """The schedule of an mcb-sim run (--schedule batsim,swf): form "batsim" (the default for a
    folder) reads batsim_jobs.csv, "swf" reads schedule.swf (its 18 fields by name; the header
    in .attrs: header, unix_start, time_zone). A file ending in .swf is read as SWF."""
    if form is None:
        form = "swf" if str(path).endswith(".swf") else "batsim"
    if form not in ("batsim", "swf"):
        raise BadInput(f"load_schedule: form '{form}' is not batsim or swf")
    frames = _frames()
    return frames.load_swf(path) if form == "swf" else frames.load_batsim(path)
