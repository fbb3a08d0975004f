"""The analysis as a package: the loaders return typed DataFrames of the suite's files, an
interpreter without pandas or matplotlib gets one line naming the one to use, and the package
installs offline (pip from the local folder, and cmake --install) where Debian's python3 imports
it."""

import os
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
