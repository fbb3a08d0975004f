"""analysis/ensemble_study.py on hand-made event logs of mcb-ensemble and background loads of
mcb-load: the measured throughput, pilot wait and resource availability rate, the fit of
a + b/P over the segments, the background jobs put on the ensemble's clock, the limits as they
acted; a run without its end is refused with exit code 2 and one line."""

import json
import os
import sys
import tempfile
import unittest

from support import ANALYSIS, run

sys.path.insert(0, ANALYSIS)
from mcb_analysis import ensemble_study as es  # noqa: E402
from mcb_analysis.swf import read_swf  # noqa: E402

T0 = 1000.0  # the runs' begin (Unix seconds)


def spec(queues):
    return "[ensemble]\nhorizon = 8\n" + "".join(
        f"[queue.{n}]\nsystem = {s}\nprocessors = {p}\ntime-limit = 40s  # a comment\n"
        for n, s, p in queues)


def segment(n, queue, processors, start, end, days, status="valid"):
    return [{"event": "segment", "n": n, "queue": queue, "processors": processors, "t": start,
             "from": (n - 1) * days, "to": n * days},
            {"event": "segment-end", "n": n, "outcome": "done", "t": end, "status": status,
             "from": (n - 1) * days, "to": n * days, "took": end - start - 0.5}]


# multi: pilot b (4 processors) waits 2 s and runs two segments of 4 days at 1 + 4/4 = 2 s a
# day; pilot a (2 processors) waits 4 s and is ended at 50 s after 46 s. single: b alone.
MULTI = ([{"event": "begin", "t": T0},
          {"event": "submit", "queue": "b", "tag": "b-1", "t": T0},
          {"event": "submit", "queue": "a", "tag": "a-1", "t": T0},
          {"event": "active", "tag": "b-1", "t": T0 + 2},
          {"event": "active", "tag": "a-1", "t": T0 + 4},
          {"event": "gone", "tag": "a-1", "queue": "a", "ran": 46.0, "t": T0 + 50}]
         + segment(1, "b", 4, T0 + 2, T0 + 10, 4) + segment(2, "b", 4, T0 + 10, T0 + 18, 4)
         + [{"event": "finished", "day": 8, "verdict": "valid", "t": T0 + 100}])
# single: 1 + 4/2 = 3 s a day at 2 processors (a fit needs two sizes).
SINGLE = ([{"event": "begin", "t": T0},
           {"event": "submit", "queue": "b", "tag": "b-1", "t": T0},
           {"event": "active", "tag": "b-1", "t": T0 + 10}]
          + segment(1, "b", 2, T0 + 10, T0 + 22, 4)
          + [{"event": "finished", "day": 4, "verdict": "valid", "t": T0 + 60}])


def background(origin):
    """slurm-b's jobs as they ran (submit, wait, run): over before the ensemble began, running
    then, waiting then, submitted after; one cancelled before it started."""
    rows = [(0, 1, 5), (0, 2, 30), (8, 10, 20), (15, 0, 5), (16, -1, -1)]
    lines = [f"; Version: 2.2\n; UnixStartTime: {origin}\n; MaxProcs: 4\n"]
    for k, (s, w, r) in enumerate(rows, start=1):
        lines.append(f"{k} {s} {w} {r} 2 -1 -1 2 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    return "".join(lines)


class EnsembleStudy(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.study = self.tmp.name
        for config, events, queues in (
                ("multi", MULTI, [("b", "slurm-b", 4), ("a", "slurm-a", 2)]),
                ("single", SINGLE, [("b", "slurm-b", 4)])):
            os.makedirs(os.path.join(self.study, config, "state"))
            os.makedirs(os.path.join(self.study, config, "load"))
            with open(os.path.join(self.study, config, "spec.ini"), "w") as f:
                f.write(spec(queues))
            with open(os.path.join(self.study, config, "state", "events.jsonl"), "w") as f:
                f.write("".join(json.dumps(e) + "\n" for e in events))
            for system in ("slurm-a", "slurm-b"):
                with open(os.path.join(self.study, config, "load", f"{system}.swf"), "w") as f:
                    f.write(background(int(T0) - 10) if system == "slurm-b" else "; MaxProcs: 4\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_run_is_measured_from_its_events(self):
        r = es.run_of(os.path.join(self.study, "multi"))
        self.assertEqual(r["days"], 8)
        self.assertAlmostEqual(r["days_per_hour"], 8 / 100 * 3600)
        self.assertAlmostEqual(r["wait"], (2 + 4) / 2)
        # b holds 4 processors from 2 s to the end, a 2 from 4 s to 50 s, over 100 s.
        self.assertAlmostEqual(r["rar"], (4 * 98 + 2 * 46) / 100)
        self.assertEqual(r["remaps"], 0)

    def test_the_fit_is_a_plus_b_over_p_per_day(self):
        f = es.fit(self.study)
        self.assertAlmostEqual(f["a"], 1.0)
        self.assertAlmostEqual(f["b"], 4.0)
        self.assertEqual(f["points"], 3)

    def write_events(self, config, events):
        with open(os.path.join(self.study, config, "state", "events.jsonl"), "w") as f:
            f.write("".join(json.dumps(e) + "\n" for e in events))

    def test_only_valid_runs_and_segments_feed_the_fit(self):
        # An invalid segment of single (a wrong time) and an INVALID multi change nothing but
        # what single alone gives; the fit names the runs it used.
        bad = segment(2, "b", 2, T0 + 22, T0 + 99, 4, status="invalid")
        self.write_events("single", SINGLE[:-1] + bad + SINGLE[-1:])
        self.write_events("multi", MULTI[:-1] + [{"event": "finished", "day": 8, "t": T0 + 100,
                                                  "verdict": "invalid", "reason": "spread"}])
        f = es.fit(self.study)
        self.assertEqual(f["points"], 1)
        self.assertEqual(f["runs"], ["single"])
        self.assertAlmostEqual(f["a"], 12 / 4)  # one size: all of it in a

    def test_a_segment_joined_over_two_queues_is_counted_but_not_fitted(self):
        # multi's second segment ran over b and a joined (6 processes, a wrong time for the
        # fit): mcb-batchgrid's replay has no such model, so the fit is single's and multi's
        # first segment, as before, and the verdict lines say how many segments were joined.
        joined = segment(2, "b", 6, T0 + 10, T0 + 90, 4)
        joined[0]["parts"] = [{"queue": "b", "tag": "b-1", "go": 2, "processors": 4},
                              {"queue": "a", "tag": "a-1", "go": 1, "processors": 2}]
        self.write_events("multi", MULTI[:-3] + joined + MULTI[-1:])
        r = es.run_of(os.path.join(self.study, "multi"))
        self.assertEqual(r["joined"], 1)
        self.assertEqual(len(r["segments"]), 2)
        f = es.fit(self.study)
        self.assertEqual(f["points"], 2)
        self.assertAlmostEqual(f["a"], 1.0)
        self.assertAlmostEqual(f["b"], 4.0)
        configs = [{"name": c, "real": es.run_of(os.path.join(self.study, c)), "sim": None}
                   for c in es.CONFIGS]
        self.assertIn("multi: 1 of 2 done segments ran joined over several queues",
                      "\n".join(es.verdict_lines(configs)))

    def test_an_invalid_run_feeds_no_figure_of_the_table(self):
        self.write_events("multi", MULTI[:-1] + [{"event": "finished", "day": 8, "t": T0 + 100,
                                                  "verdict": "invalid", "reason": "spread"}])
        configs = [{"name": c, "real": es.run_of(os.path.join(self.study, c)), "sim": None}
                   for c in es.CONFIGS]
        rows = es.table(configs).csv().splitlines()
        self.assertTrue(rows[1].startswith("multi,INVALID,2 of 2,8,"), rows[1])
        self.assertEqual(rows[1].split(",")[4:], [""] * 12)
        lines = es.verdict_lines(configs)
        self.assertEqual(lines[0], "multi: INVALID (spread)")
        self.assertEqual(lines[-1], "cannot be judged: only VALID runs are compared")
        # A log from before runs were judged has no verdict: INVALID, and it says why.
        self.write_events("single", SINGLE[:-1] + [{"event": "finished", "day": 4, "t": T0 + 60}])
        r = es.run_of(os.path.join(self.study, "single"))
        self.assertEqual((r["verdict"], r["reason"]), ("INVALID", "no verdict in the log"))
        with self.assertRaisesRegex(Exception, "no VALID run to fit"):
            es.fit(self.study)

    def test_the_background_is_put_on_the_ensembles_clock(self):
        _, rows = read_swf(self.replayed())
        # Ten seconds before the begin: job 1 was over, job 2 ran until 22 s, job 3 was waiting
        # until 8 s, job 4 came at 5 s; job 5 never ran.
        self.assertEqual([(r[0], r[1], r[2], r[3]) for r in rows],
                         [(2, 0, 0, 22), (3, 0, 8, 20), (4, 5, 0, 5)])

    def replayed(self):
        out = os.path.join(self.study, "multi", "replay")
        with open(os.path.join(self.study, "fit.json"), "w") as f:
            json.dump(es.fit(self.study), f)
        args = es.replay(self.study, "multi", out)
        # The largest queue first, each at its limit as it acted (a's pilot ran 46 s of 40).
        queues = args[args.index("--queues") + 1].split(",")
        self.assertIn("slurm-b.swf:limit=40", queues[0])
        self.assertIn("slurm-a.swf:limit=46.0", queues[1])
        self.assertEqual(args[args.index("--requests") + 1], "4,2")
        return os.path.join(out, "slurm-b.swf")

    def test_a_run_without_its_end_is_refused_in_one_line(self):
        path = os.path.join(self.study, "single", "state", "events.jsonl")
        with open(path, "w") as f:
            f.write(json.dumps(SINGLE[0]) + "\n")
        r = run("ensemble_study.py", "fit", self.study, "--output",
                os.path.join(self.study, "fit.json"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("no begin or no finished event", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.study, "fit.json")))


if __name__ == "__main__":
    unittest.main()
