"""The analysis as a package: the loaders return typed DataFrames of the suite's files (a main
job's campaign runs apart from its probes), their errors are caught by standard types, the
README's notebook example runs as written, an interpreter without pandas or matplotlib gets one
line naming the one to use, and the package installs offline (pip from the local folder, and
cmake --install) where Debian's python3 imports it."""

import json
import os
import re
import shutil
import subprocess
import sys
import unittest

from support import ANALYSIS, BIN, FIXTURES, PYTHON, SOURCE, SWEEPS, TempDirTest, read_csv

sys.path.insert(0, ANALYSIS)
import mcb_analysis  # noqa: E402
from mcb_analysis.cli import BadInput  # noqa: E402

RECORDS = os.path.join(SOURCE, "tests", "fixtures", "records")
PROGRAMS = ["mcb-sim", "mcb-calibrate", "mcb-campaign", "mcb-poisson", "mcb-ensflow",
            "mcb-links", "mcb-match", "mcb-match-study"]


def python(*args, env=None, cwd=None):
    return subprocess.run([PYTHON, *args], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {})),
                          cwd=cwd)


class Loaders(TempDirTest):
    def test_records_one_row_per_run_with_flattened_fields(self):
        path = os.path.join(RECORDS, "links-local", "links.jsonl")
        frame = mcb_analysis.load_records(os.path.dirname(path))
        with open(path, encoding="utf-8") as f:
            lines = [l for l in f if l.strip()]
        self.assertEqual(len(frame), len(lines))
        self.assertIn("env.host", frame.columns)
        self.assertIn("config.seed", frame.columns)
        # The fixtures are version 1 (bytes/s); they load as version 2, bandwidths in MB/s.
        self.assertTrue((frame["schema"] == "mcb-run/2").all())

    def test_a_record_of_another_schema_is_named_by_file_and_line(self):
        with self.assertRaises(BadInput) as e:
            mcb_analysis.load_records(os.path.join(RECORDS, "bad", "wrong-schema.jsonl"))
        self.assertIn("wrong-schema.jsonl:", str(e.exception))

    def test_torn_last_line_is_left_out(self):
        src = os.path.join(RECORDS, "links-local", "links.jsonl")
        with open(src, encoding="utf-8") as f:
            text = f.read()
        path = self.path("torn.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text + text.splitlines()[0][:40])
        self.assertEqual(len(mcb_analysis.load_records(path)),
                         len([l for l in text.splitlines() if l.strip()]))

    def test_tables_sweep_and_jobs_are_typed(self):
        runtimes = mcb_analysis.load_tables(os.path.join(FIXTURES, "das2-appendix"))
        self.assertEqual(len(runtimes),
                         len(read_csv(os.path.join(FIXTURES, "das2-appendix", "runtimes.csv"))))
        self.assertTrue(any(str(t).startswith("float") or str(t).startswith("int")
                            for t in runtimes.dtypes))
        sweep = mcb_analysis.load_sweep(SWEEPS[0])
        self.assertEqual(len(sweep), len(read_csv(os.path.join(SWEEPS[0], "sweep.csv"))))
        self.assertEqual(str(sweep["rate"].dtype), "float64")
        self.assertEqual(sweep["policy"].dtype, object)
        jobs = mcb_analysis.load_jobs(os.path.join(FIXTURES, "one-point"))
        self.assertEqual(len(jobs), len(read_csv(os.path.join(FIXTURES, "one-point",
                                                              "jobs.csv"))))
        self.assertEqual(str(jobs["response"].dtype), "float64")
        self.assertEqual(jobs["clusters"].dtype, object)

    def test_missing_folder_is_bad_input(self):
        with self.assertRaises(BadInput):
            mcb_analysis.load_sweep(self.path("nothing"))


def main_job_results(root):
    """A folder laid out as scripts/main-job.sh leaves results/main (two campaigns, one probe,
    the tables) beside a sweep (results/sim/poisson) and, when mcb-sim is built, a one-point
    replay with its schedule files (results/replay)."""
    main = os.path.join(root, "results", "main")
    for name, source in (("poisson-local", "poisson-local/runs.jsonl"),
                         ("poisson-sync", "poisson-sync/runs.jsonl")):
        os.makedirs(os.path.join(main, "campaign", name))
        with open(os.path.join(RECORDS, source), encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
        for r in records:  # whole times as the programs write them now: 9, not 9.0
            if float(r["result"]["wall_time"]).is_integer():
                r["result"]["wall_time"] = int(r["result"]["wall_time"])
        with open(os.path.join(main, "campaign", name, "records.jsonl"), "w",
                  encoding="utf-8") as f:
            f.write("".join(json.dumps(r) + "\n" for r in records))
    os.makedirs(os.path.join(main, "probe"))
    shutil.copy(os.path.join(RECORDS, "links-local", "links.jsonl"),
                os.path.join(main, "probe", "reference.jsonl"))
    shutil.copytree(os.path.join(FIXTURES, "das2-appendix"), os.path.join(main, "tables"))
    shutil.copytree(SWEEPS[0], os.path.join(root, "results", "sim", "poisson"))
    if not BIN or not os.path.exists(os.path.join(BIN, "mcb-sim")):
        return False
    trace = os.path.join(SOURCE, "tests", "fixtures", "traces", "DAS2-fs1-round-times.swf")
    proc = subprocess.run([os.path.join(BIN, "mcb-sim"), "--trace", trace, "--queue", "easy",
                           "--warmup", "0", "--schedule", "batsim,swf", "--output",
                           os.path.join(root, "results", "replay")],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    return True


def lines_of(path):
    with open(path, encoding="utf-8") as f:
        return len([l for l in f if l.strip()])


class MainJobAndOutputs(TempDirTest):
    def setUp(self):
        super().setUp()
        self.replay = main_job_results(self.tmp)
        self.main = self.path("results", "main")

    def test_records_of_a_main_job_are_its_campaigns_and_probes_apart(self):
        records = mcb_analysis.load_records(self.main)
        self.assertEqual(len(records), 7 + 4)
        self.assertEqual(sorted(set(records["campaign"])), ["poisson-local", "poisson-sync"])
        self.assertTrue(records["file"].str.endswith("records.jsonl").all())
        probes = mcb_analysis.load_records(self.main, probes=True)
        self.assertEqual(len(probes), lines_of(os.path.join(self.main, "probe",
                                                            "reference.jsonl")))
        self.assertTrue((probes["app"] == "links").all())
        # Times are float64 in every column, whether a value was written as 12 or 12.5.
        for column in ("result.wall_time", "result.compute_time.avg", "result.comm_time.max"):
            self.assertEqual(str(records[column].dtype), "float64", column)

    def test_outputs_of_a_replay_are_typed_alike(self):
        if not self.replay:
            self.skipTest("MCB_BIN_DIR holds no mcb-sim")
        replay = self.path("results", "replay")
        for path in (replay, os.path.join(FIXTURES, "one-point")):
            jobs = mcb_analysis.load_jobs(path)
            for column in ("submit", "start", "end", "wait", "response"):
                self.assertEqual(str(jobs[column].dtype), "float64", (path, column))
            self.assertEqual(str(jobs["total_size"].dtype), "int64", path)
            self.assertEqual(str(jobs["measured"].dtype), "bool", path)
        batsim = mcb_analysis.load_schedule(replay)
        self.assertEqual(str(batsim["waiting_time"].dtype), "float64")
        self.assertEqual(str(batsim["requested_number_of_resources"].dtype), "int64")
        swf = mcb_analysis.load_schedule(replay, "swf")
        self.assertEqual(len(swf), 10)
        self.assertEqual(str(swf["wait"].dtype), "float64")
        self.assertEqual(str(swf["procs"].dtype), "int64")
        self.assertEqual(swf.attrs["unix_start"], 1041377305)
        self.assertEqual(swf.attrs["time_zone"], "Europe/Amsterdam")
        self.assertEqual(list(swf["wait"]), list(batsim.set_index("job_id").loc[
            swf["job"], "waiting_time"]))
        summary = mcb_analysis.load_summary(replay)
        self.assertEqual(summary["schema"], "mcb-sim-summary/1")
        doc = mcb_analysis.load_sweep_json(SWEEPS[0])
        self.assertEqual(len(doc["points"]), len(mcb_analysis.load_sweep(SWEEPS[0])))

    def test_errors_are_caught_by_their_standard_types(self):
        self.assertTrue(issubclass(BadInput, ValueError))
        with self.assertRaises(FileNotFoundError):
            mcb_analysis.load_sweep(self.path("results", "sim", "nothing"))
        with self.assertRaises(FileNotFoundError):
            mcb_analysis.load_records(self.path("results", "main", "records"))
        if not self.replay:
            return
        with self.assertRaises(ValueError) as e:  # an SWF given to a CSV loader
            mcb_analysis.load_jobs(self.path("results", "replay", "schedule.swf"))
        self.assertIsInstance(e.exception, BadInput)
        self.assertIn("Standard Workload Format", str(e.exception))
        self.assertNotIn("tokeniz", str(e.exception))

    def test_version_is_the_packages(self):
        with open(os.path.join(ANALYSIS, "pyproject.toml"), encoding="utf-8") as f:
            version = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
        self.assertEqual(mcb_analysis.__version__, version)

    def test_readme_notebook_example_runs_as_written(self):
        if not self.replay:
            self.skipTest("MCB_BIN_DIR holds no mcb-sim")
        with open(os.path.join(ANALYSIS, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        section = readme[readme.index("## In a notebook"):]
        code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
        proc = python("-c", code, env={"PYTHONPATH": ANALYSIS, "MPLBACKEND": "Agg"}, cwd=self.tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = proc.stdout.splitlines()
        self.assertEqual(out[0], mcb_analysis.__version__)
        self.assertEqual(out[1], "1041377305 Europe/Amsterdam")
        self.assertIn("Standard Workload Format", proc.stdout)
        self.assertIn("results/sim/nothing: no such file", proc.stdout)


class WithoutPandas(unittest.TestCase):
    """-S leaves site-packages (Debian's pandas and matplotlib) off the path: an interpreter
    that lacks them."""

    def test_scripts_print_one_line(self):
        for script in ("simulation.py", "measurement.py", "report.py", "fig5_study.py",
                       "ensflow_figures.py", "matching_figures.py"):
            proc = python("-S", os.path.join(ANALYSIS, script), "--help")
            self.assertEqual(proc.returncode, 2, script)
            lines = proc.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, proc.stderr)
            self.assertIn("/usr/bin/python3", lines[0])
            self.assertIn("pandas", lines[0])

    def test_import_works_and_loaders_say_what_is_missing(self):
        proc = python("-S", "-c", "import mcb_analysis\ntry:\n mcb_analysis.load_sweep('x')\n"
                      "except ImportError as e:\n print(e)", cwd=ANALYSIS)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("lacks pandas", proc.stdout)


class Install(TempDirTest):
    def check_import(self, path):
        proc = python("-c", "import mcb_analysis, sys; print(mcb_analysis.__file__); "
                      "print(mcb_analysis.load_sweep(sys.argv[1]).shape[0])", SWEEPS[0],
                      env={"PYTHONPATH": path}, cwd=self.tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(proc.stdout.startswith(path), proc.stdout)

    def test_pip_from_the_local_folder_offline(self):
        copy = self.path("src")
        shutil.copytree(ANALYSIS, copy, ignore=shutil.ignore_patterns("__pycache__", "build"))
        proc = python("-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
                      "--target", self.path("site"), copy)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.check_import(self.path("site"))

    def test_cmake_install(self):
        build = os.path.dirname(BIN) if BIN else ""
        if not build or not all(os.path.exists(os.path.join(BIN, p)) for p in PROGRAMS):
            self.skipTest("the programs are not all built")
        proc = subprocess.run(["cmake", "--install", build, "--prefix", self.path("prefix")],
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        site = self.path("prefix", "lib", version, "dist-packages")
        self.check_import(site)
        for p in PROGRAMS:
            self.assertTrue(os.access(self.path("prefix", "bin", p), os.X_OK), p)
        for f in ("share/mcb/analysis/simulation.py", "share/mcb/scripts/mpi-env.sh",
                  "share/mcb/tables/das2/runtimes.csv", "share/mcb/campaigns/poisson-local.ini",
                  "share/mcb/platforms/four-clusters.ini"):
            self.assertTrue(os.path.exists(self.path("prefix", *f.split("/"))), f)


if __name__ == "__main__":
    unittest.main()
