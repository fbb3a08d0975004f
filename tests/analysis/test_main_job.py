"""The main job end to end at its tiny size (MCB_MAIN_SIZE=tiny): real campaigns with mcb-poisson
and mcb-ensflow on emulated clusters, mcb-calibrate, mcb-sim with the measured and the das2
tables, the analysis and the report; and the DAS-2 replay with a short sweep."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from support import BIN, SOURCE, read_csv, read_json

NEEDED = ["mcb-campaign", "mcb-poisson", "mcb-ensflow", "mcb-calibrate", "mcb-sim"]
HAVE = bool(BIN) and all(os.path.exists(os.path.join(BIN, p)) for p in NEEDED)


def run_script(script, results, **env):
    full = dict(os.environ, MCB_BUILD_DIR=os.path.dirname(BIN), MCB_RESULTS_DIR=results,
                PYTHONDONTWRITEBYTECODE="1", **env)
    return subprocess.run([os.path.join(SOURCE, "scripts", script)], capture_output=True,
                          text=True, env=full, timeout=1200)


def main_sizes(size, cores):
    """The sizes scripts/main-sizes.sh chooses for a host with `cores` cores."""
    script = (f'source "{SOURCE}/scripts/main-sizes.sh"; main_sizes {size} {cores}; '
              'echo "$p_sizes"; echo "$p_appendix_procs"; echo "$p_appendix_clusters"; '
              'printf "%s;" "${e_sizes[@]}"')
    lines = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    return {"sizes": [int(p) for p in lines[0].split()], "appendix": lines[1],
            "appendix_clusters": [int(c) for c in lines[2].split()],
            "ensflow": [int(e.split(":")[0]) for e in lines[3].split(";") if e]}


class MainJobSizes(unittest.TestCase):
    """At the demo size no run of the main job puts more ranks on the host than it has cores."""

    def test_demo_never_oversubscribes(self):
        for cores in range(1, 9):
            with self.subTest(cores=cores):
                s = main_sizes("demo", cores)
                procs = int(s["appendix"].split("x")[0]) * int(s["appendix"].split("x")[1])
                self.assertLessEqual(procs, cores)
                self.assertTrue(all(p <= cores for p in s["sizes"] + s["ensflow"]), s)
                # Never more clusters than processes, and always 1 cluster to compare with.
                self.assertEqual(s["appendix_clusters"][0], 1)
                self.assertLessEqual(s["appendix_clusters"][-1], procs)

    def test_demo_keeps_the_papers_grid_where_the_cores_allow(self):
        self.assertEqual(main_sizes("demo", 2)["appendix"], "2x1")
        self.assertEqual(main_sizes("demo", 2)["appendix_clusters"], [1, 2])
        self.assertEqual(main_sizes("demo", 4)["appendix"], "4x1")
        self.assertEqual(main_sizes("demo", 4)["appendix_clusters"], [1, 2, 4])
        self.assertEqual(main_sizes("demo", 16)["sizes"], [1, 2, 4])

    def test_tiny_keeps_every_size_to_check_the_warnings(self):
        s = main_sizes("tiny", 2)
        self.assertEqual((s["appendix"], s["sizes"]), ("4x1", [1, 2, 4]))


class MainJobPenalty(unittest.TestCase):
    """The penalty section reads runtimes.csv and the records through the analysis package."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="mcb-penalty-test-")
        self.table = os.path.join(self.tmp, "runtimes.csv")
        with open(self.table, "w", encoding="utf-8") as f:
            f.write("app,problem,total_size,components,system,n,min,avg,max,median,stddev\n"
                    "poisson,64x64,2,1,s,3,2.0,2.5,3.0,2.5,0.1\n"
                    "poisson,64x64,2,2,s,3,2.4,2.6,3.2,2.6,0.1\n"
                    "poisson,32x32,2,2,s,3,9.0,9.0,9.0,9.0,0\n")
        self.records = os.path.join(self.tmp, "records.jsonl")
        with open(self.records, "w", encoding="utf-8") as f:
            for load in (5.0, 6.0, 7.0):
                f.write(json.dumps({"schema": "mcb-run/1", "env": {"load_average": load},
                                    "config": {"total_size": 2}}) + "\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def penalty(self, *extra):
        return subprocess.run(["/usr/bin/python3", os.path.join(SOURCE, "analysis",
                                                                "main_job_penalty.py"),
                               "--runtimes", self.table, "--problem", "64x64", "--cores", "2",
                               *extra], capture_output=True, text=True)

    def test_penalty_beside_the_papers_and_the_busy_host_named(self):
        proc = self.penalty("--records", self.records)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        row = next(line for line in proc.stdout.splitlines() if line.startswith("| 2 |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        # min 2.4 over min 2.0; the paper's 16 processes: 766 / 649.
        # No runs on 4 clusters: their columns are left out, not filled with dashes.
        self.assertEqual(cells[3], "1.20")
        self.assertEqual(cells[4:6], ["16", "1.18"])
        self.assertEqual(cells[1], "2 (avg 2.5, max 3)")
        self.assertNotIn("4 clusters (s)", proc.stdout)
        self.assertIn("**Co-allocation penalty:** on 2 processes two clusters take 1.20 times "
                      "as long as one (min runtimes); the paper's Table 4 gives 1.18 at 16.",
                      proc.stdout)
        self.assertIn("beyond the runs' own ranks, median 4.0", proc.stdout)
        self.assertIn("busy with other work", proc.stdout)

    def test_a_malformed_record_ends_with_one_line_and_code_2(self):
        with open(self.records, "a", encoding="utf-8") as f:
            f.write("{not json\n")
        proc = self.penalty("--records", self.records)
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("records.jsonl:4", proc.stderr)


class MainJobRecords(unittest.TestCase):
    """The figures main-job.sh takes from run records, read by the analysis package's reader."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="mcb-main-records-test-")
        self.records = os.path.join(self.tmp, "records.jsonl")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, *records):
        with open(self.records, "w", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")

    def run_records(self, *args):
        return subprocess.run(["/usr/bin/python3", os.path.join(SOURCE, "analysis",
                                                                "main_job_records.py"), *args],
                              capture_output=True, text=True)

    @staticmethod
    def poisson(clusters, wall, iterations, status="valid", system="emulated"):
        return {"schema": "mcb-run/2", "app": "poisson", "status": status,
                "config": {"components": clusters, "system": system},
                "result": {"wall_time": wall, "iterations": iterations}}

    def test_summary_counts_records_invalid_runs_and_systems(self):
        self.write(self.poisson(1, 1.0, 10), self.poisson(2, 2.0, 10, status="invalid"),
                   dict(self.poisson(1, 1.0, 10), app="ensflow", system="local"))
        missing = os.path.join(self.tmp, "none", "records.jsonl")
        proc = self.run_records("summary", self.records, missing)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), "3 1 ensflow:emulated;poisson:emulated")

    def test_probe_gives_the_fastest_iteration_per_cluster_count(self):
        self.write(self.poisson(1, 3.0, 300), self.poisson(1, 1.5, 300),
                   self.poisson(2, 6.0, 300), self.poisson(2, 4.5, 300))
        proc = self.run_records("probe", self.records)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), "0.005 0.015")

    def test_probe_without_two_clusters_or_with_a_bad_record_ends_with_code_2(self):
        self.write(self.poisson(1, 3.0, 300))
        proc = self.run_records("probe", self.records)
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("2 cluster", proc.stderr)
        with open(self.records, "a", encoding="utf-8") as f:
            f.write("{not json\n")
        proc = self.run_records("summary", self.records)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("records.jsonl:2", proc.stderr)


@unittest.skipUnless(HAVE, f"needs {', '.join(NEEDED)} in MCB_BIN_DIR")
class MainJob(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="mcb-main-job-test-")
        cls.out = os.path.join(cls.tmp, "main")
        cls.proc = run_script("main-job.sh", cls.out, MCB_MAIN_SIZE="tiny")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_finishes_and_shows_progress(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout[-3000:] + self.proc.stderr)
        stages = re.findall(r"^\[(\d)/5 (\w+), \d+s\]", self.proc.stdout, re.M)
        self.assertEqual(stages, [("1", "measure"), ("2", "calibrate"), ("3", "simulate"),
                                  ("4", "analyse"), ("5", "report")])
        self.assertRegex(self.proc.stdout, r"main job: done in \d+s")
        # mcb-campaign reports every run as it ends.
        self.assertRegex(self.proc.stdout, r"\[ ?1/\d+\] main-poisson-appendix-1-r1 valid")

    def test_every_run_is_recorded_and_valid(self):
        campaigns = os.path.join(self.out, "campaign")
        names = sorted(os.listdir(campaigns))
        self.assertEqual(names, ["ensflow-1", "ensflow-2", "ensflow-4", "poisson-appendix",
                                 "poisson-sizes"])
        statuses = []
        for name in names:
            with open(os.path.join(campaigns, name, "records.jsonl"), encoding="utf-8") as f:
                statuses += [re.search(r'"status":"(\w+)"', line).group(1) for line in f]
        # Poisson 6 + 6 configurations, Ensflow 1 + 2 + 3, two repetitions each.
        self.assertEqual(len(statuses), 36)
        self.assertEqual(set(statuses), {"valid"})

    def test_every_record_carries_the_machines_share(self):
        path = os.path.join(self.out, "campaign", "poisson-sizes", "records.jsonl")
        with open(path, encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
        cores = os.cpu_count()
        for r in records:
            env = r["env"]
            self.assertGreaterEqual(env["cores_available"], 1)
            self.assertLessEqual(env["cores_available"], cores)
            ranks = r["config"]["total_size"]
            # One host: ranks per core is the ranks over the cores they may use.
            self.assertAlmostEqual(env["ranks_per_core"], ranks / env["cores_available"])
            self.assertIn("load_average", env)

    def test_bars_past_two_decades_are_drawn_on_a_log_axis(self):
        for name in ("fig3-poisson-runtime-by-procs", "fig4-runtime-normalised"):
            doc = read_json(os.path.join(self.out, "analysis", "measurements", name + ".json"))
            for p in doc["panels"]:
                values = [v for s in p["series"] for key in ("y", "ymin", "ymax")
                          for v in s.get(key) or [] if v is not None and v > 0]
                expected = "log" if max(values) / min(values) > 100 else "linear"
                self.assertEqual(p["y_scale"], expected, (name, p["title"]))

    def test_measured_figure5_draws_every_rule_in_every_panel(self):
        doc = read_json(os.path.join(self.out, "analysis", "sim-measured",
                                     "measured-fig5-response-vs-gross.json"))
        for p in doc["panels"]:
            self.assertEqual(sorted(c["rule"] for c in p["curves"]), ["co", "fco", "no", "rco"])
            for c in p["curves"]:
                # Drawn (a stable point at least), or its legend entry says why not.
                self.assertTrue(c["x"] or c["label"].endswith("saturated throughout"),
                                (p["title"], c["label"]))

    def test_tables_cover_what_the_simulation_needs(self):
        rows = read_csv(os.path.join(self.out, "tables", "runtimes.csv"))
        keys = {(r["app"], r["total_size"], r["components"]) for r in rows
                if r["problem"] in ("32x32", "m4-d2-g15")}
        for app in ("poisson", "ensflow"):
            for size, comps in ((1, 1), (2, 1), (2, 2), (4, 1), (4, 2), (4, 4)):
                self.assertIn((app, str(size), str(comps)), keys)
        for r in rows:
            self.assertEqual(r["n"], "2")
        for mix in ("poisson", "ensflow", "mixed"):
            for tables in ("measured", "das2"):
                doc = read_json(os.path.join(self.out, "sim", tables, mix, "sweep.json"))
                self.assertEqual(doc["config"]["policy"], ["gs", "ls", "lp"])
                self.assertEqual(doc["config"]["rule"], ["no", "co", "rco", "fco"])
                sizes = doc["config"]["clusters"]["sizes"]
                self.assertEqual(sizes, [4] * 4 if tables == "measured" else [32] * 4)

    def test_report_puts_the_three_parts_together(self):
        report = os.path.join(self.out, "report")
        with open(os.path.join(report, "report.md"), encoding="utf-8") as f:
            md = f.read()
        for heading in ("## Measurements on this machine",
                        "## Simulations with the tables measured here",
                        "## Simulations with the DAS-2 paper's tables", "## Provenance",
                        "### Table 3 layout", "![Figure 9", "![Figure 12",
                        "![Figure 5", "![Figure 8", "### campaign poisson-appendix"):
            self.assertIn(heading, md)
        # The summary at the top holds both saturation tables, before the contents.
        top = md.split("## Contents\n", 1)[0]
        self.assertEqual(top.count("### Largest utilization before saturation"), 2)
        doc = read_json(os.path.join(report, "report.json"))
        inputs = [i["path"] for part in doc["parts"] for i in part["inputs"]]
        self.assertIn(os.path.join(self.out, "tables", "runtimes.csv"), inputs)
        self.assertIn(os.path.join(self.out, "sim", "das2", "mixed", "sweep.csv"), inputs)
        self.assertIn(os.path.join(self.out, "sim", "measured", "poisson", "sweep.csv"), inputs)
        manifest = read_json(os.path.join(self.out, "analysis", "measurements", "manifest.json"))
        self.assertEqual(manifest["provenance"]["record_counts"]["used"], 36)
        # mcb-calibrate's warnings stand under the table they concern: 4 processes on fewer
        # than 4 cores are oversubscribed.
        if (os.cpu_count() or 1) < 4:
            table2 = md.split("### Table 2 layout")[1].split("\n### ")[0]
            self.assertRegex(table2, r"\*Note:\* Warning: poisson,32x32,4,1,[^:]*: 2 of 2 runs "
                                     r"oversubscribed")
        # The co-allocation penalty of the simulated sizes, beside the paper's Table 4.
        self.assertIn("**Co-allocation penalty of the simulated sizes**", md)
        self.assertRegex(md, r"\| 2 \| [0-9.]+ \(avg [0-9.]+, max [0-9.]+\) \| [0-9.]+ .* \| 16 \| "
                             r"1\.18 \| 1\.18 \|")
        self.assertTrue(os.path.getsize(os.path.join(report, "report.html")) > 100000)


@unittest.skipUnless(HAVE, f"needs {', '.join(NEEDED)} in MCB_BIN_DIR")
class Das2Replay(unittest.TestCase):
    def test_replays_the_paper_tables_into_a_report(self):
        tmp = tempfile.mkdtemp(prefix="mcb-das2-test-")
        try:
            out = os.path.join(tmp, "das2")
            proc = run_script("das2-replay.sh", out, MCB_SIM_JOBS="1000",
                              MCB_SIM_UTILIZATION="0.3:0.9:0.3", MCB_FIG5_JOBS="2000",
                              MCB_FIG5_REPLICATIONS="2", MCB_FIG5_RESOLUTION="0.05")
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertIn("[4/4", proc.stdout)
            doc = read_json(os.path.join(out, "analysis", "das2-fig5-response-vs-gross.json"))
            self.assertEqual(doc["rows"], ["LS", "LP", "GS"])
            self.assertEqual(doc["columns"], ["poisson", "ensflow", "mixed"])
            report = read_json(os.path.join(out, "report", "report.json"))
            inputs = [i["path"] for part in report["parts"] for i in part["inputs"]]
            self.assertIn(os.path.join(SOURCE, "calibration", "das2", "runtimes.csv"), inputs)
            with open(os.path.join(out, "report", "report.md"), encoding="utf-8") as f:
                text = f.read()
                self.assertIn("1000 jobs per simulated point", text)
                self.assertIn("### Claims of sections 5 and 6", text)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
