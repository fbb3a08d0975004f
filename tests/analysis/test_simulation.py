"""simulation.py on real mcb-sim sweeps of the paper's three job mixes (tests/fixtures/analysis/
sweeps): Figure 5's panels and curves must be the sweep's rows, saturation must be marked, the
legends must list the rules in one order in every panel, Figures 6-8 must pair gross and net utilization."""

import csv
import json
import os
import shutil
import tempfile
import unittest

from support import SWEEPS, TempDirTest, read_csv, read_json, run

OUT = None


def setUpModule():
    global OUT
    OUT = tempfile.mkdtemp(prefix="mcb-analysis-simulation-")
    proc = run("simulation.py", *sum((["--sweep", s] for s in SWEEPS), []), "--output", OUT,
               "--prefix", "das2-", "--title", "DAS-2 tables")
    if proc.returncode != 0:
        raise RuntimeError(f"simulation.py failed: {proc.stderr}")


def tearDownModule():
    shutil.rmtree(OUT, ignore_errors=True)


def rows(mix):
    return read_csv(os.path.join(SWEEPS[["poisson", "ensflow", "mixed"].index(mix)],
                                 "sweep.csv"))


def curve_rows(mix, policy, rule):
    out = [r for r in rows(mix) if r["policy"] == policy and r["rule"] == rule]
    return sorted(out, key=lambda r: float(r["rate"]))


class Figure5(TempDirTest):
    def setUp(self):
        super().setUp()
        self.doc = read_json(os.path.join(OUT, "das2-fig5-response-vs-gross.json"))

    def panel(self, title):
        hits = [p for p in self.doc["panels"] if p["title"] == title]
        self.assertEqual(len(hits), 1, title)
        return hits[0]

    def test_policies_top_to_bottom_and_mixes_left_to_right(self):
        self.assertEqual(self.doc["rows"], ["LS", "LP", "GS"])
        self.assertEqual(self.doc["columns"], ["poisson", "ensflow", "mixed"])
        self.assertEqual(len(self.doc["panels"]), 9)
        self.assertEqual(self.doc["panels"][0]["title"], "LS, poisson")
        for p in self.doc["panels"]:
            self.assertEqual(sorted(c["rule"] for c in p["curves"]), ["co", "fco", "no", "rco"])
            self.assertEqual(p["xlabel"], "gross utilization")
            self.assertEqual(p["ylabel"], "average response time (s)")

    def test_curves_are_the_stable_rows_of_the_sweep(self):
        for mix, policy, rule in (("poisson", "ls", "co"), ("ensflow", "gs", "fco"),
                                  ("mixed", "lp", "no")):
            expected = curve_rows(mix, policy, rule)
            first = next((i for i, r in enumerate(expected)
                          if r["saturation_point"] == "first_saturated"), None)
            stable = expected[:first] if first is not None else expected
            curve = [c for c in self.panel(f"{policy.upper()}, {mix}")["curves"]
                     if c["rule"] == rule][0]
            self.assertEqual(curve["x"], [float(r["gross_utilization"]) for r in stable])
            self.assertEqual(curve["y"], [float(r["response_mean"]) for r in stable])
            if first is None:
                self.assertIsNone(curve["first_saturated"])
            else:
                response = expected[first]["response_mean"]
                self.assertEqual(curve["first_saturated"],
                                 {"x": float(expected[first]["gross_utilization"]),
                                  "y": float(response) if response else None})

    def test_saturation_is_visible(self):
        # At offered utilization 0.9 [co] saturates for every policy and mix (the paper: [co]
        # is the worst rule everywhere); its first saturated point is drawn at the top edge.
        for p in self.doc["panels"]:
            co = [c for c in p["curves"] if c["rule"] == "co"][0]
            self.assertTrue(co["saturated_within_sweep"], p["title"])
            self.assertGreater(co["first_saturated"]["y"], p["y_top"], p["title"])

    def test_no_axis_excludes_a_stable_point(self):
        for p in self.doc["panels"]:
            for c in p["curves"]:
                for y in c["y"]:
                    self.assertLessEqual(y, p["y_top"], p["title"])
                    self.assertGreaterEqual(y, p["y_bottom"], p["title"])
        # Past two decades of stable responses in a column the axis is logarithmic.
        for mix in self.doc["columns"]:
            panels = [p for p in self.doc["panels"] if p["mix"] == mix]
            ys = [y for p in panels for c in p["curves"] for y in c["y"] if y > 0]
            scale = "log" if max(ys) / min(ys) > 100 else "linear"
            self.assertEqual({p["y_scale"] for p in panels}, {scale}, mix)

    def test_legends_list_the_rules_in_one_order_in_every_panel(self):
        """A rule keeps its place in the legend from panel to panel ([no], [co], [rco],
        [fco]), whatever order the curves lie in."""
        order = ["no", "co", "rco", "fco"]
        moved = 0
        for p in self.doc["panels"]:
            rule_of = {c["label"]: c["rule"] for c in p["curves"]}
            self.assertEqual(sorted(p["legend"]), sorted(rule_of))
            rules = [rule_of[label] for label in p["legend"]]
            self.assertEqual(rules, sorted(rules, key=order.index), p["title"])
            by_position = sorted(p["curves"], key=lambda c: -c["position"])
            moved += [c["label"] for c in by_position] != p["legend"]
        # The curves' right-to-left order differs from the legend's somewhere, so the test
        # tells the two orders apart.
        self.assertGreater(moved, 0)

    def test_lp_without_coallocation_is_ls(self):
        ls = [c for c in self.panel("LS, poisson")["curves"] if c["rule"] == "no"][0]
        lp = [c for c in self.panel("LP, poisson")["curves"] if c["rule"] == "no"][0]
        self.assertEqual(ls["x"], lp["x"])
        self.assertEqual(ls["y"], lp["y"])

    def test_pictures_and_corner(self):
        self.assertPicture(os.path.join(OUT, "das2-fig5-response-vs-gross.png"),
                           os.path.join(OUT, "das2-fig5-response-vs-gross.svg"))
        self.assertTrue(self.doc["corner"].startswith("tables das2 · clusters 4x32 · mcb "))


class StoppedRuns(TempDirTest):
    """Runs stopped early as saturated leave empty cells (no response, sometimes no
    utilization): what was measured is drawn, and every curve still shows where it saturated."""

    def test_empty_cells(self):
        stopped = os.path.join(os.path.dirname(SWEEPS[0]), "..", "sweeps-stopped", "poisson")
        rows = read_csv(os.path.join(stopped, "sweep.csv"))
        self.assertTrue(any(r["response_mean"] == "" for r in rows))
        proc = run("simulation.py", "--sweep", stopped, "--output", self.tmp)
        self.assertOk(proc)
        doc = read_json(self.path("fig5-response-vs-gross.json"))
        self.assertEqual(doc["rows"], ["LS", "GS"])
        for p in doc["panels"]:
            for c in p["curves"]:
                expected = [r for r in rows if r["policy"] == p["policy"] and
                            r["rule"] == c["rule"] and r["saturation_point"] != "first_saturated"
                            and r["response_mean"] != "" and float(r["saturated"]) == 0]
                self.assertEqual(c["x"], [float(r["gross_utilization"]) for r in expected])
                first = [r for r in rows if r["policy"] == p["policy"] and
                         r["rule"] == c["rule"] and r["saturation_point"] == "first_saturated"][0]
                mark = c["first_saturated"]
                self.assertIsNotNone(mark, p["title"])
                if first["gross_utilization"] == "":
                    # No utilization measured: the mark sits where the curve ends.
                    self.assertEqual(mark, {"x": c["x"][-1], "y": None})
                else:
                    self.assertEqual(mark["x"], float(first["gross_utilization"]))
        self.assertPicture(self.path("fig5-response-vs-gross.png"),
                           self.path("fig5-response-vs-gross.svg"))


class AllSaturated(TempDirTest):
    """A panel none of whose curves has a stable point says so, and its legend marks every
    entry, since nothing but the saturation mark is drawn."""

    def test_panel_note_and_marked_legend(self):
        source = os.path.join(os.path.dirname(SWEEPS[0]), "..", "sweeps-stopped", "poisson")
        sweep = self.path("sweep")
        shutil.copytree(source, sweep)
        with open(os.path.join(sweep, "sweep.csv"), newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
            fields = list(rows[0].keys())
        seen = set()
        for r in rows:  # GS saturates from its first rate on, for every rule
            if r["policy"] != "gs":
                continue
            first = (r["rule"], r["placement"], r["queue"]) not in seen
            seen.add((r["rule"], r["placement"], r["queue"]))
            r["saturated"] = "1"
            r["saturation_point"] = "first_saturated" if first else ""
        with open(os.path.join(sweep, "sweep.csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)
        self.assertOk(run("simulation.py", "--sweep", sweep, "--output", self.path("out")))
        doc = read_json(self.path("out", "fig5-response-vs-gross.json"))
        gs = [p for p in doc["panels"] if p["policy"] == "gs"][0]
        self.assertEqual(gs["note"], "every curve saturated at every rate simulated")
        for c in gs["curves"]:
            self.assertEqual(c["x"], [])
            self.assertTrue(c["label"].endswith("saturated throughout"), c["label"])
        ls = [p for p in doc["panels"] if p["policy"] == "ls"][0]
        self.assertIsNone(ls["note"])


class CoincidingCurves(TempDirTest):
    """Two rules with the same points in a panel: the later one covers the earlier, so its
    legend entry names both and no curve is lost from sight."""

    def test_covered_curve_is_named(self):
        sweep = self.path("sweep")
        shutil.copytree(SWEEPS[0], sweep)
        with open(os.path.join(sweep, "sweep.csv"), newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
            fields = list(rows[0].keys())
        no = [r for r in rows if r["policy"] == "ls" and r["rule"] == "no"]
        others = [r for r in rows if not (r["policy"] == "ls" and r["rule"] == "co")]
        rows = others + [dict(r, rule="co") for r in no]  # LS [co] now repeats LS [no]
        with open(os.path.join(sweep, "sweep.csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)
        self.assertOk(run("simulation.py", "--sweep", sweep, "--output", self.path("out")))
        doc = read_json(self.path("out", "fig5-response-vs-gross.json"))
        ls = [p for p in doc["panels"] if p["policy"] == "ls"][0]
        labels = {c["rule"]: c["label"] for c in ls["curves"]}
        self.assertEqual(labels["co"], "[co] = [no]")
        self.assertEqual(labels["no"], "[no]")
        self.assertIn("[co] = [no]", ls["legend"])
        for p in doc["panels"]:
            if p["policy"] != "ls":
                self.assertNotIn("=", " ".join(p["legend"]), p["title"])


class OnePoint(TempDirTest):
    """A one-point run (summary.json and jobs.csv, no sweep) gets its own items, not a
    refusal."""

    def test_summary_table_and_response_figure(self):
        point = os.path.join(os.path.dirname(SWEEPS[0]), "..", "one-point")
        proc = run("simulation.py", "--sweep", point, "--output", self.tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        summary = read_json(os.path.join(point, "summary.json"))
        with open(self.path("run-summary.md"), encoding="utf-8") as f:
            table = f.read()
        self.assertIn(f"| jobs measured | {summary['result']['jobs']['measured']} |", table)
        self.assertIn("| saturated | no |", table)
        doc = read_json(self.path("run-responses.json"))
        measured = [r for r in read_csv(os.path.join(point, "jobs.csv")) if r["measured"] == "1"]
        cdf = doc["panels"][0]["curves"][0]
        self.assertEqual(len(cdf["x"]), len(measured))
        self.assertEqual(cdf["x"], sorted(float(r["response"]) for r in measured))
        self.assertEqual(doc["panels"][1]["y"], [float(r["response"]) for r in measured])

    def test_sweeps_and_points_are_not_mixed(self):
        point = os.path.join(os.path.dirname(SWEEPS[0]), "..", "one-point")
        proc = run("simulation.py", "--sweep", SWEEPS[0], "--sweep", point, "--output",
                   self.path("out"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("one-point run", proc.stderr)
        self.assertFalse(os.path.exists(self.path("out")))


class GrossNet(TempDirTest):
    def test_one_figure_per_policy_numbered_as_the_paper(self):
        manifest = read_json(os.path.join(OUT, "manifest.json"))
        self.assertEqual([i["id"] for i in manifest["items"]],
                         ["das2-fig5-response-vs-gross", "das2-fig6-gross-net-ls-wf-fcfs",
                          "das2-fig7-gross-net-gs-wf-fcfs", "das2-fig8-gross-net-lp-wf-fcfs",
                          "das2-table-saturation"])

    def test_panels_pair_gross_and_net_for_the_coallocation_rules(self):
        doc = read_json(os.path.join(OUT, "das2-fig6-gross-net-ls-wf-fcfs.json"))
        self.assertEqual(doc["policy"], "ls")
        self.assertEqual(doc["rows"], ["poisson", "ensflow", "mixed"])
        self.assertEqual(doc["columns"], ["co", "rco", "fco"])
        self.assertEqual(len(doc["panels"]), 9)
        for p in doc["panels"]:
            gross, net = sorted(p["curves"], key=lambda c: c["utilization"])
            self.assertEqual((gross["utilization"], net["utilization"]), ("gross", "net"))
            self.assertEqual(gross["y"], net["y"])  # the same runs, two utilizations
            for g, n in zip(gross["x"], net["x"]):
                self.assertLessEqual(n, g + 1e-12)
            # Net utilization lies left of gross: gross is listed first.
            self.assertEqual(p["legend"], ["gross utilization", "net utilization"])
        expected = curve_rows("poisson", "ls", "rco")
        p = [p for p in doc["panels"] if p["title"] == "poisson, [rco]"][0]
        net = [c for c in p["curves"] if c["utilization"] == "net"][0]
        self.assertEqual(net["x"][0], float(expected[0]["net_utilization"]))


class SaturationTable(TempDirTest):
    def test_rows_and_values(self):
        table = read_csv(os.path.join(OUT, "das2-table-saturation.csv"))
        self.assertEqual([(r["job mix"], r["policy"]) for r in table],
                         [(m, p) for m in ("poisson", "ensflow", "mixed")
                          for p in ("LS", "LP", "GS")])
        gs = [r for r in table if r["job mix"] == "poisson" and r["policy"] == "GS"][0]
        expected = curve_rows("poisson", "gs", "co")
        last = [r for r in expected if r["saturation_point"] == "last_stable"]
        if last:
            self.assertEqual(float(gs["[co] gross"]), float(last[0]["gross_utilization"]))
            self.assertEqual(float(gs["[co] net"]), float(last[0]["net_utilization"]))
        with open(os.path.join(OUT, "das2-table-saturation.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn("| poisson | GS |", md)


class BadInput(TempDirTest):
    def broken(self, mutate, keep_json=True):
        """A copy of the Poisson sweep with sweep.csv rewritten by mutate(text)."""
        d = self.path("broken")
        os.makedirs(d)
        with open(os.path.join(SWEEPS[0], "sweep.csv"), encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(d, "sweep.csv"), "w", encoding="utf-8") as f:
            f.write(mutate(text))
        if keep_json:
            shutil.copy(os.path.join(SWEEPS[0], "sweep.json"), d)
        return d

    def test_missing_column(self):
        def drop(text):
            lines = text.splitlines()
            header = lines[0].split(",")
            k = header.index("gross_utilization")
            return "\n".join(",".join(c for i, c in enumerate(l.split(",")) if i != k)
                             for l in lines) + "\n"
        d = self.broken(drop)
        proc = run("simulation.py", "--sweep", d, "--output", self.path("out"))
        self.assertBadInput(proc, os.path.join(d, "sweep.csv"), "gross_utilization")
        self.assertFalse(os.path.exists(self.path("out")))

    def test_empty_file_and_header_only(self):
        proc = run("simulation.py", "--sweep", self.broken(lambda t: ""), "--output",
                   self.path("out"))
        self.assertBadInput(proc, "sweep.csv", "empty file")
        shutil.rmtree(self.path("broken"))
        proc = run("simulation.py", "--sweep", self.broken(lambda t: t.splitlines()[0] + "\n"),
                   "--output", self.path("out"))
        self.assertBadInput(proc, "sweep.csv", "no rows")

    def test_bad_cell_names_line_and_column(self):
        def corrupt(text):
            lines = text.splitlines()
            cells = lines[3].split(",")
            cells[lines[0].split(",").index("response_mean")] = "fast"
            lines[3] = ",".join(cells)
            return "\n".join(lines) + "\n"
        proc = run("simulation.py", "--sweep", self.broken(corrupt), "--output", self.path("o"))
        self.assertBadInput(proc, "sweep.csv:4", "response_mean", "'fast'")

    def test_sweep_json_of_another_schema_version(self):
        d = self.broken(lambda t: t)
        path = os.path.join(d, "sweep.json")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        doc["schema"] = "mcb-sim-sweep/2"
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        proc = run("simulation.py", "--sweep", d, "--output", self.path("out"))
        self.assertBadInput(proc, "sweep.json", "mcb-sim-sweep/2", "mcb-sim-sweep/1")
        self.assertFalse(os.path.exists(self.path("out")))

    def test_missing_sweep_json_and_twice_the_same_sweep(self):
        proc = run("simulation.py", "--sweep", self.broken(lambda t: t, keep_json=False),
                   "--output", self.path("out"))
        self.assertBadInput(proc, "sweep.json", "no such file")
        proc = run("simulation.py", "--sweep", SWEEPS[0], "--sweep", SWEEPS[0], "--output",
                   self.path("out"))
        self.assertBadInput(proc, "also in another sweep")
        proc = run("simulation.py", "--sweep", self.path("nowhere"), "--output", self.path("o"))
        self.assertBadInput(proc, "--sweep", "nowhere")


if __name__ == "__main__":
    unittest.main()
