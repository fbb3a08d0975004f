"""Tables, figures and the report of the mcb suite (DAS-2 study layouts), and the suite's files
as pandas DataFrames for notebooks:

    import mcb_analysis as mcb
    records = mcb.load_records("results/main/records")      # one row per run
    runtimes = mcb.load_tables("results/main/tables")       # mcb-calibrate's runtimes.csv
    sweep = mcb.load_sweep("results/sim/poisson")           # mcb-sim's sweep.csv
    jobs = mcb.load_jobs("results/replay")                  # mcb-sim's jobs.csv
    schedule = mcb.load_jobs("results/replay", schedule=True)   # batsim_jobs.csv

Runs under Debian's /usr/bin/python3 with python3-matplotlib and python3-pandas (see
analysis/README.md). Importing the package needs neither; the loaders need pandas and say so in
one line when it is missing.
"""

from .requirements import missing as _missing

__all__ = ["load_records", "load_tables", "load_sweep", "load_jobs"]


def _frames():
    lacking = _missing()
    if lacking:
        import sys
        raise ImportError(f"mcb_analysis: {sys.executable} lacks {' and '.join(lacking)}; use "
                          "/usr/bin/python3 (Debian's python3-matplotlib and python3-pandas)")
    from . import frames
    return frames


def load_records(folder):
    """Run records (JSON Lines) of a file or folder as a DataFrame, one row per run."""
    return _frames().load_records(folder)


def load_tables(folder, table="runtimes"):
    """One calibration table (default runtimes.csv) of mcb-calibrate's folder."""
    return _frames().load_tables(folder, table)


def load_sweep(folder):
    """sweep.csv of an mcb-sim sweep folder."""
    return _frames().load_sweep(folder)


def load_jobs(folder, schedule=False):
    """jobs.csv of a one-point mcb-sim run, or with schedule=True its batsim_jobs.csv."""
    return _frames().load_jobs(folder, schedule)
