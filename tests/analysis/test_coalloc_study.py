"""analysis/coalloc_study.py on hand-made records of the co-allocating executor: the requests
file mcb-redundant replays, the real-against-simulated table with the coordinator's overhead, and
seed 004's claim with its verdict; bad records are refused with exit code 2 and one line."""

import json
import os
import subprocess
import tempfile
import unittest

from support import ANALYSIS, BIN, read_csv, run

import sys
sys.path.insert(0, ANALYSIS)
from mcb_analysis.swf import read_swf  # noqa: E402


def record(run_id, d, ranking, first, go, end, held, overhead):
    """A record as the co-allocating executor writes it (the fields the study reads)."""
    joined = go is not None
    return {"schema": "mcb-run/2", "run_id": run_id, "status": "valid" if joined else "failed",
            "env": {"coalloc": {
                "duplicates": d, "ranking": ranking, "synchronization": "stop-and-wait",
                "first_submitted": first, "go": go,
                "coallocation_seconds": go - first if joined else None,
                "joint_start": go + overhead if joined else None,
                "overhead_seconds": overhead if joined else None,
                "held_idle_processor_seconds": held,
                "components": [{"component": k, "processors": 2} for k in (0, 1)],
                "copies": [{"tag": f"c{k}", "component": k, "bound": joined,
                            "ended": end - k if joined else None} for k in (0, 1)]}}}


# d = 0: co-allocated in 10 and 3 s, ending 20 and 13 s after arrival (one run timed out);
# Qlen d = 1: in 2 and 1 s, ending 12 and 11 s after arrival.
CONFIGS = {
    "d0-random-stop-and-wait": [record("a1", 0, "random", 1000, 1010, 1020, 20, 0.3),
                                record("a2", 0, "random", 1005, 1008, 1018, 4, 0.5),
                                record("a3", 0, "random", 1007, None, None, 0, None)],
    "d1-qlen-stop-and-wait": [record("b1", 1, "qlen", 1000, 1002, 1012, 0, 0.2),
                              record("b2", 1, "qlen", 1005, 1006, 1016, 2, 0.9)],
}


class CoallocStudy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.study = cls.tmp.name
        site = os.path.join(cls.study, "site.swf")
        with open(site, "w", encoding="utf-8") as f:
            f.write("; UnixStartTime: 1000\n; MaxProcs: 4\n")
        for name, records in CONFIGS.items():
            folder = os.path.join(cls.study, name, "campaign")
            os.makedirs(folder)
            with open(os.path.join(folder, "records.jsonl"), "w", encoding="utf-8") as f:
                f.writelines(json.dumps(r) + "\n" for r in records)
            swf = os.path.join(cls.study, name, "requests.swf")
            r = run("coalloc_study.py", "requests", folder, "--requested", "480", "--output", swf)
            assert r.returncode == 0, r.stderr
            d = name[1]
            sim = subprocess.run([os.path.join(BIN, "mcb-redundant"), "--site-trace", site,
                                  "--site-trace", site, "--site-trace", site, "--requests", swf,
                                  "--sync", "stop-and-wait", "--rankers", name.split("-")[1],
                                  "--duplicates", d, "--replications", "2", "--queue", "cons",
                                  "--output", os.path.join(cls.study, name, "sim")],
                                 capture_output=True, text=True)
            assert sim.returncode == 0, sim.stdout + sim.stderr
        cls.result = run("coalloc_study.py", "table", cls.study)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_requests_file_holds_the_joined_runs(self):
        header, rows = read_swf(os.path.join(self.study, "d0-random-stop-and-wait",
                                             "requests.swf"))
        self.assertIn(("UnixStartTime", "1000"), header)
        # submit, run (go to last end), both parts' processors, requested time
        self.assertEqual([(r[1], r[3], r[7], r[8]) for r in rows],
                         [(0.0, 10.0, 4, 480.0), (5.0, 10.0, 4, 480.0)])

    def test_table_puts_real_beside_simulated(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        rows = {r["configuration"]: r for r in read_csv(os.path.join(self.study, "table.csv"))}
        d0, d1 = rows["d0-random-stop-and-wait"], rows["d1-qlen-stop-and-wait"]
        self.assertEqual((d0["runs"], d0["failed"]), ("2", "1"))
        self.assertAlmostEqual(float(d0["co-allocation time (s) real"]), 6.5)
        self.assertAlmostEqual(float(d0["response time (s) real"]), 16.5)
        self.assertAlmostEqual(float(d0["held idle (processor-s) real"]), 12)
        self.assertAlmostEqual(float(d1["co-allocation time (s) real"]), 1.5)
        # Empty sites: the replay co-allocates at once and runs each request for its runtime.
        self.assertAlmostEqual(float(d0["co-allocation time (s) sim"]), 0)
        self.assertAlmostEqual(float(d0["response time (s) sim"]), 10)
        self.assertAlmostEqual(float(d1["overhead (s) mean"]), 0.55)
        self.assertAlmostEqual(float(d1["overhead (s) min"]), 0.2)
        self.assertAlmostEqual(float(d1["overhead (s) max"]), 0.9)
        self.assertGreater(os.path.getsize(os.path.join(self.study, "coalloc-study.png")), 1000)

    def test_claim_is_judged_with_its_numbers(self):
        out = self.result.stdout
        # 1 - 1.5 / 6.5 = 76.9%; 1 - 11.5 / 16.5 = 30.3%
        self.assertIn("real stop-and-wait, qlen d=1 against d=0: mean coalloc time 6.50 -> 1.50 "
                      "s, improvement 76.9%: HOLDS", out)
        self.assertIn("mean response time 16.5 -> 11.5 s, improvement 30.3%: HOLDS", out)
        self.assertIn("sim stop-and-wait, qlen d=1 against d=0: mean coalloc time 0 -> 0 s",
                      out)
        self.assertIn("DOES NOT HOLD", out)
        with open(os.path.join(self.study, "coalloc-study.md"), encoding="utf-8") as f:
            self.assertIn("HOLDS", f.read())

    def test_a_record_without_coalloc_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "records.jsonl"), "w", encoding="utf-8") as f:
                f.write(json.dumps({"schema": "mcb-run/2", "run_id": "x", "env": {}}) + "\n")
            r = run("coalloc_study.py", "requests", tmp, "--requested", "10", "--output",
                    os.path.join(tmp, "r.swf"))
            self.assertEqual(r.returncode, 2)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
            self.assertIn("record 1: no env.coalloc", r.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "r.swf")))


if __name__ == "__main__":
    unittest.main()
