"""The Figure 5 study's scoring (analysis/mcb_analysis/fig5_claims.py) on small hand-made
points, and its absolute saturation reading (--knee seconds:S) on fixed run results and on a
tiny real study: a difference inside its band is a tie, which holds "better" and "similar" and
fails "much better"; saturation points closer than one bisection bracket are a tie; LSF is
scored against LP's gain; seconds:S is saturated from S seconds on; analysis/fig5_heads.py
classifies co-allocated components by the local queue head they meet."""

import csv
import os
import sys
import tempfile
import unittest

from support import BIN, SOURCE, run

sys.path.insert(0, os.path.join(SOURCE, "analysis"))
from mcb_analysis import cli  # noqa: E402
from mcb_analysis import fig5_claims as fc  # noqa: E402
import fig5_study  # noqa: E402

BRACKET = 0.58 / 128  # the default range's final bracket in offered net load


def rows_of(curves, bracket=BRACKET, loss=None):
    """knees.csv rows: curves maps (mix, policy, rule) to the points of replications 0..n-1;
    gross equals net, so a bracket in gross utilization is the offered bracket."""
    rows = []
    for (mix, policy, rule), values in curves.items():
        for k, v in enumerate(values):
            rows.append({"mix": mix, "policy": policy, "rule": rule, "replication": k,
                         "knee_gross": v, "knee_net": v, "offered_low": 0.6,
                         "offered_high": 0.6 + bracket, "censored": "",
                         "loss": v if loss is None else loss[(mix, policy, rule)][k]})
    return rows


def claim(rows, cid):
    points = fc.points_of(rows)
    return next(c for c in fc.evaluate(rows, points) if c["id"] == cid)


class Ties(unittest.TestCase):
    def test_judge_reads_a_tie_by_the_wording(self):
        self.assertEqual(fc.judge(">=", 0.0, 0.0), (True, True))     # "better": exact tie holds
        self.assertEqual(fc.judge(">=", -0.004, 0.005), (True, True))
        self.assertEqual(fc.judge(">=", -0.006, 0.005), (False, False))
        self.assertEqual(fc.judge(">>", 0.0, 0.0), (False, True))    # "much better" fails a tie
        self.assertEqual(fc.judge(">>", 0.004, 0.005), (False, True))
        self.assertEqual(fc.judge(">>", 0.006, 0.005), (True, False))
        self.assertEqual(fc.judge("~", -0.005, 0.005), (True, True))
        self.assertEqual(fc.judge("~", 0.006, 0.005), (False, False))

    def test_an_exact_tie_holds_best_and_fails_much_better(self):
        # LS and LP [rco] equal in every replication: LSB ("best") holds, RCO ("much better")
        # fails, both with the comparison counted as a tie.
        same = [0.70, 0.72, 0.71]
        rows = rows_of({("poisson", "ls", "rco"): same, ("poisson", "lp", "rco"): same})
        lsb, rco = claim(rows, "LSB"), claim(rows, "RCO")
        self.assertTrue(lsb["held"])
        self.assertEqual(lsb["ties"], 1)
        self.assertFalse(rco["held"])
        self.assertEqual(rco["details"][0]["difference"], 0.0)

    def test_a_difference_inside_its_interval_is_a_tie(self):
        # LS behind LP by 0.002 on average, paired differences -0.01..+0.006: inside the interval.
        ls = [0.700, 0.710, 0.690, 0.706]
        lp = [0.710, 0.704, 0.696, 0.704]
        rows = rows_of({("mixed", "ls", "fco"): ls, ("mixed", "lp", "fco"): lp}, bracket=0.0)
        d = claim(rows, "LSB")["details"][0]
        self.assertLess(d["difference"], 0)
        self.assertLess(abs(d["difference"]), d["half_width"])
        self.assertTrue(d["held"] and d["tie"])
        self.assertEqual(d["band_source"], "interval")
        self.assertTrue(claim(rows, "SIM")["held"])

    def test_beyond_the_interval_is_no_tie(self):
        ls = [0.700, 0.710, 0.690, 0.706]
        lp = [v + 0.02 for v in ls]
        rows = rows_of({("mixed", "ls", "fco"): ls, ("mixed", "lp", "fco"): lp}, bracket=0.0)
        self.assertFalse(claim(rows, "LSB")["held"])
        self.assertFalse(claim(rows, "SIM")["held"])

    def test_points_within_one_bracket_are_a_tie(self):
        # A constant difference of 0.003 has a zero interval, but the bisection does not order
        # points closer than its bracket (0.0045): similar.
        ls = [0.700, 0.710, 0.690]
        lp = [v + 0.003 for v in ls]
        rows = rows_of({("ensflow", "ls", "fco"): ls, ("ensflow", "lp", "fco"): lp})
        d = claim(rows, "SIM")["details"][0]
        self.assertAlmostEqual(d["half_width"], 0.0)
        self.assertAlmostEqual(d["band"], BRACKET)
        self.assertEqual(d["band_source"], "bracket")
        self.assertTrue(d["held"])
        # With a finer bracket the same difference is LP ahead: SIM fails.
        rows = rows_of({("ensflow", "ls", "fco"): ls, ("ensflow", "lp", "fco"): lp},
                       bracket=0.001)
        self.assertFalse(claim(rows, "SIM")["held"])

    def test_gross_minus_net_has_no_bracket(self):
        # G6S compares a measured loss: a constant 0.003 apart is not similar.
        pts = [0.7, 0.71, 0.72]
        keys = [("poisson", po, "rco") for po in ("gs", "ls", "lp")]
        loss = {keys[0]: [0.050] * 3, keys[1]: [0.053] * 3, keys[2]: [0.053] * 3}
        rows = rows_of({k: pts for k in keys}, loss=loss)
        g6s = claim(rows, "G6S")
        self.assertEqual([d["held"] for d in g6s["details"]], [False, False, True])
        self.assertEqual(g6s["tolerance"], fc.BAND_LOSS)


class SmallerGain(unittest.TestCase):
    def curves(self, ls_gain, lp_gain):
        base = [0.65, 0.66, 0.64, 0.655]
        return rows_of({("poisson", "ls", "rco"): base,
                        ("poisson", "ls", "fco"): [b + g for b, g in zip(base, ls_gain)],
                        ("poisson", "lp", "rco"): base,
                        ("poisson", "lp", "fco"): [b + g for b, g in zip(base, lp_gain)]},
                       bracket=0.0)

    def test_ls_gaining_less_than_lp_holds(self):
        c = claim(self.curves([0.018, 0.02, 0.016, 0.018], [0.06, 0.062, 0.058, 0.06]), "LSF")
        self.assertTrue(c["held"])
        self.assertFalse(c["details"][0]["tie"])
        self.assertEqual(c["tolerance"], fc.BAND_LSF)

    def test_ls_gaining_as_much_as_lp_fails(self):
        gain = [0.06, 0.062, 0.058, 0.06]
        self.assertFalse(claim(self.curves(gain, gain), "LSF")["held"])

    def test_no_gain_is_a_tie(self):
        c = claim(self.curves([0.002, -0.002, 0.001, -0.001], [0.0] * 4), "LSF")
        self.assertTrue(c["held"] and c["details"][0]["tie"])


class Table(unittest.TestCase):
    def test_every_claim_names_its_tolerance_and_wording(self):
        same = [0.70, 0.72, 0.71]
        rows = rows_of({("poisson", po, r): same for po in ("gs", "ls", "lp")
                        for r in ("no", "co", "rco", "fco")})
        points = fc.points_of(rows)
        claims = fc.evaluate(rows, points)
        text = fc.markdown(claims, points, "fixed points")
        self.assertIn("| tolerance (source) |", text)
        for c in claims:
            self.assertIn(c["tolerance"], (fc.BAND_POINTS, fc.BAND_LOSS, fc.BAND_LSF))
            self.assertIn(f"| {c['id']} | {c['section']} |", text)
            self.assertIn(c["wording"], text)


class SecondsReading(unittest.TestCase):
    class Args:
        def __init__(self, knee):
            self.factor, self.seconds = fig5_study.parse_knee(knee)

    @staticmethod
    def result(mean, saturated=False, stopped=False):
        return {"response": {"mean": mean}, "saturated": saturated, "stopped_early": stopped}

    def test_parse(self):
        self.assertEqual(fig5_study.parse_knee("seconds:20000"), (None, 20000.0))
        self.assertEqual(fig5_study.parse_knee("response:5"), (5.0, None))
        self.assertEqual(fig5_study.parse_knee("backlog"), (None, None))
        for bad in ("seconds:0", "seconds:-3", "seconds:x", "seconds:", "seconds:inf",
                    "response:1", "minutes:3"):
            with self.subTest(knee=bad), self.assertRaises(cli.BadInput):
                fig5_study.parse_knee(bad)

    def test_saturated_from_s_seconds_on(self):
        args = self.Args("seconds:20000")
        # The reference (the light-load response) plays no part in the absolute reading.
        self.assertFalse(fig5_study.saturated(args, self.result(19999.0), 100.0))
        self.assertTrue(fig5_study.saturated(args, self.result(20000.0), 100.0))
        self.assertFalse(fig5_study.saturated(args, self.result(5000.0, saturated=True), 9e9))
        self.assertTrue(fig5_study.saturated(args, self.result(10.0, stopped=True), 1.0))
        self.assertTrue(fig5_study.saturated(args, self.result(None), 1.0))
        relative = self.Args("response:5")
        self.assertTrue(fig5_study.saturated(relative, self.result(5000.0), 1000.0))
        self.assertFalse(fig5_study.saturated(relative, self.result(4999.0), 1000.0))

    def test_bad_knee_exits_two(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "x")
            done = run("fig5_study.py", "--mcb-sim", os.path.join(BIN, "mcb-sim"), "--tables",
                       os.path.join(SOURCE, "calibration", "das2"), "--output", out,
                       "--knee", "seconds:0")
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertIn("--knee", done.stderr)
            self.assertFalse(os.path.exists(out))


class Heads(unittest.TestCase):
    """analysis/fig5_heads.py on a hand-made schedule of six jobs on clusters 0-2."""

    JOBS = [  # id, submit, start, end, size, components, clusters, queue
        (1, 0, 0, 100, 20, 1, "0:20", "local0"),
        (2, 10, 100, 200, 20, 1, "0:20", "local0"),    # waits for 20 with 12 idle: draining
        (3, 20, 20, 60, 8, 2, "0:4;1:4", "local1"),     # on 0 while 2 waits; 1 has no head
        (6, 40, 40, 70, 16, 2, "1:8;2:8", "global"),    # on 1: head 5 fitted (24 of 28) no more
        (5, 30, 60, 80, 24, 1, "1:24", "local1"),
        (4, 60, 60, 90, 16, 2, "0:8;1:8", "global")]    # on 0 (2 waits); on 1 beside 5 starting

    def test_classifies_each_component_by_the_head_it_meets(self):
        header = ("id,app,submit,start,end,wait,response,bounded_slowdown,total_size,components,"
                  "clusters,queue,service,net_service,requested,reserved,measured,replication")
        lines = [header] + [f"{i},ensflow,{a},{b},{e},{b - a},{e - a},1,{n},{k},{c},{q},"
                            f"{e - b},{e - b},{e - b},,1,0" for i, a, b, e, n, k, c, q in self.JOBS]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "jobs.csv")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            done = run("fig5_heads.py", path)
        self.assertEqual(done.returncode, 0, done.stderr)
        out = done.stdout
        self.assertIn("3 multi-component starts", out)
        self.assertIn("head is draining: 2 (33.3%), 400 processor-s", out)   # 4 x 40 + 8 x 30
        self.assertIn("head is taken: 1 (16.7%), 240 processor-s", out)      # 8 x 30
        self.assertIn("head is other: 3 (50.0%)", out)
        # Three queues over 200 s: 2 heads local0 for 90 s, 5 heads local1 for 30 s.
        self.assertIn("heads over time: empty 80.0%, single 20.0%, multi 0.0%", out)
        self.assertIn("mean wait, single 20: 45 s (2 jobs)", out)
        self.assertIn("mean wait, multi-component: 0 s (3 jobs)", out)

    def test_a_bad_file_is_one_line_and_exit_two(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "jobs.csv")
            with open(path, "w", encoding="utf-8") as f:
                f.write("id,submit,start,end,total_size,components,measured,clusters,queue\n"
                        "1,0,0,10,8,1,1,0-8,local0\n")
            done = run("fig5_heads.py", path)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn("jobs.csv:2: column clusters: '0-8'", done.stderr)


@unittest.skipUnless(os.access(os.path.join(BIN, "mcb-sim"), os.X_OK), "mcb-sim is not built")
class SecondsStudy(unittest.TestCase):
    """One curve, two replications, a coarse bisection: the real mcb-sim under two thresholds."""

    def knees(self, tmp, seconds):
        out = os.path.join(tmp, f"s{seconds}")
        done = run("fig5_study.py", "--mcb-sim", os.path.join(BIN, "mcb-sim"), "--tables",
                   os.path.join(SOURCE, "calibration", "das2"), "--output", out,
                   "--knee", f"seconds:{seconds}", "--jobs", "2000", "--replications", "2",
                   "--resolution", "0.05", "--workers", "1", "--mixes", "poisson",
                   "--policies", "ls", "--rules", "no")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"reaches {seconds} s", done.stdout)
        with open(os.path.join(out, "knees.csv"), newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    def test_the_point_is_below_s_and_moves_up_with_s(self):
        with tempfile.TemporaryDirectory() as tmp:
            low, high = self.knees(tmp, 3000), self.knees(tmp, 30000)
        for a, b in zip(low, high):
            self.assertEqual(a["seed"], b["seed"])
            self.assertLess(float(a["knee_response"]), 3000)
            self.assertLess(float(b["knee_response"]), 30000)
            self.assertLessEqual(float(a["offered_low"]), float(b["offered_low"]))
        # Poisson at 0.3 responds in about 1 ks: 3 ks is reached well inside the range.
        self.assertTrue(all(r["censored"] == "" for r in low), low)


if __name__ == "__main__":
    unittest.main()
