"""measurement.py on the DAS-2 paper's own measurements (tests/fixtures/analysis/das2-appendix):
the tables must print the paper's numbers, the figures must draw them in the paper's layout."""

import os
import unittest

from support import PAPER, TempDirTest, read_csv, read_json, run

OUT = None


def setUpModule():
    global OUT
    import tempfile
    OUT = tempfile.mkdtemp(prefix="mcb-analysis-measurement-")
    proc = run("measurement.py", "--calibration", PAPER, "--output", OUT, "--baseline", "pbs")
    if proc.returncode != 0:
        raise RuntimeError(f"measurement.py failed: {proc.stderr}")


def tearDownModule():
    import shutil
    shutil.rmtree(OUT, ignore_errors=True)


def data(item):
    return read_json(os.path.join(OUT, item + ".json"))


def panel(doc, title):
    hits = [p for p in doc["panels"] if p["title"] == title]
    assert len(hits) == 1, [p["title"] for p in doc["panels"]]
    return hits[0]


class Items(TempDirTest):
    def test_every_item_is_written_with_its_files(self):
        manifest = read_json(os.path.join(OUT, "manifest.json"))
        ids = [i["id"] for i in manifest["items"]]
        self.assertEqual(ids, ["table2-poisson-runtime-by-procs", "fig3-poisson-runtime-by-procs",
                               "table3-poisson-runtime", "fig4-runtime-normalised",
                               "table9-poisson-comm-sync", "table10-poisson-comm-sync-vs-nosync",
                               "fig9-rank-comm", "fig10-rank-comm-directions",
                               "fig11-comm-normalised", "fig12-transfer-rate"])
        self.assertEqual(manifest["skipped"], [])
        for item in manifest["items"]:
            for name in item["files"].values():
                self.assertTrue(os.path.getsize(os.path.join(OUT, name)) > 0, name)
            if item["kind"] == "figure":
                self.assertPicture(os.path.join(OUT, item["files"]["png"]),
                                   os.path.join(OUT, item["files"]["svg"]))
            self.assertIn("runtimes.csv" if "runtime" in item["id"] or "procs" in item["id"]
                          else ".csv", item["source"])

    def test_manifest_names_the_inputs_with_digests(self):
        manifest = read_json(os.path.join(OUT, "manifest.json"))
        names = sorted(os.path.basename(s["path"]) for s in manifest["inputs"])
        self.assertEqual(names, ["calibration.json", "comm_sync.csv", "comm_time.csv",
                                 "rank_comm.csv", "runtimes.csv", "runtimes.json",
                                 "transfer_rates.csv"])
        for s in manifest["inputs"]:
            self.assertRegex(s["sha256"], "^[0-9a-f]{64}$")
        self.assertEqual(manifest["provenance"]["hosts"], ["DAS-2"])

    def test_figures_carry_the_system_label_and_revision(self):
        for item in ("fig4-runtime-normalised", "fig9-rank-comm", "fig12-transfer-rate"):
            self.assertEqual(data(item)["corner"], "system globus, pbs · host DAS-2 · mcb paper")


class Tables(TempDirTest):
    def test_table3_prints_the_papers_runtimes(self):
        with open(os.path.join(OUT, "table3-poisson-runtime.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn("process grid 4x4", md)
        # Table 3, grid 4000x4000: PBS 701 706 712, Globus-1 720 733 766, Globus-2 743 750 757,
        # Globus-4 728 751 794.
        self.assertIn("| 4000x4000 | 701 | 706 | 712 | 720 | 733 | 766 | 743 | 750 | 757 | 728 "
                      "| 751 | 794 |", md)
        self.assertIn("| 50x50 | 0.22 | 0.23 | 0.29 | 1.35 | 1.60 | 2.28 |", md)
        rows = read_csv(os.path.join(OUT, "table3-poisson-runtime.csv"))
        self.assertEqual([r["grid size"] for r in rows],
                         ["50x50", "100x100", "200x200", "400x400", "1000x1000", "2000x2000",
                          "4000x4000", "10000x10000"])
        self.assertEqual(float(rows[-1]["globus, 4 clusters avg"]), 4235.0)
        self.assertEqual(list(rows[0])[:4], ["grid size", "pbs, 1 cluster min",
                                             "pbs, 1 cluster avg", "pbs, 1 cluster max"])

    def test_table2_has_a_row_per_grid_and_processors(self):
        rows = read_csv(os.path.join(OUT, "table2-poisson-runtime-by-procs.csv"))
        keys = [(r["grid size"], r["processors"]) for r in rows]
        self.assertIn(("1000x1000", "64"), keys)
        row = rows[keys.index(("1000x1000", "64"))]
        self.assertEqual(row["process grid"], "8x8")
        self.assertEqual(row["globus, 1 cluster"], "")  # no Globus-1 data for 64 processors
        self.assertEqual(float(row["globus, 2 clusters"]), 30.7)
        row = rows[keys.index(("4000x4000", "16"))]
        self.assertEqual(row["iterations"], "2644")

    def test_table9_and_table10(self):
        rows = read_csv(os.path.join(OUT, "table9-poisson-comm-sync.csv"))
        last = rows[-1]
        self.assertEqual((last["grid size"], last["iterations"]), ("10000x10000", "2644"))
        self.assertEqual([float(last[f"globus, 2 clusters {s}"]) for s in ("min", "avg", "max")],
                         [186, 267, 398])
        rows = read_csv(os.path.join(OUT, "table10-poisson-comm-sync-vs-nosync.csv"))
        row = [r for r in rows if r["grid size"] == "4000x4000"][0]
        self.assertEqual(float(row["globus, 1 cluster sync yes"]), 134)
        self.assertEqual(float(row["globus, 1 cluster sync no"]), 18.1)


class Figures(TempDirTest):
    def test_fig4_is_runtime_over_the_one_cluster_runtime(self):
        doc = data("fig4-runtime-normalised")
        self.assertEqual(len(doc["panels"]), 1)
        p = doc["panels"][0]
        self.assertEqual(p["legend"], ["pbs, 1 cluster", "globus, 1 cluster",
                                       "globus, 2 clusters", "globus, 4 clusters"])
        self.assertEqual(p["x"][0], "50x50")
        four = p["series"][3]["y"]
        self.assertAlmostEqual(four[0], 7.62 / 0.23)
        self.assertTrue(all(abs(y - 1) < 1e-12 for y in p["series"][0]["y"]))
        self.assertIn("relative to pbs, 1 cluster", p["ylabel"])

    def test_fig9_draws_each_process_at_column_rank_div_v_row_rank_mod_v(self):
        doc = data("fig9-rank-comm")
        self.assertEqual(len(doc["panels"]), 8)  # grids 100 and 4000 x four setups
        p = panel(doc, "globus, 2 clusters, grid 100x100")
        self.assertEqual((p["columns"], p["rows"]), (4, 4))
        # Row 0 first (the bottom of the picture): the paper prints it last.
        self.assertEqual(p["values"][0], [0.74, 5.72, 7.41, 5.83])
        self.assertEqual(p["values"][1][1], 12.9)
        self.assertEqual(p["ranks"][0], [0, 4, 8, 12])
        self.assertEqual(p["ranks"][3], [3, 7, 11, 15])
        self.assertEqual(p["clusters"][0], [0, 0, 1, 1])
        self.assertEqual(panel(doc, "globus, 4 clusters, grid 4000x4000")["clusters"][2],
                         [0, 1, 2, 3])

    def test_fig10_has_one_panel_per_direction(self):
        doc = data("fig10-rank-comm-directions")
        self.assertEqual([p["title"] for p in doc["panels"]], ["top", "bottom", "left", "right"])
        self.assertEqual(doc["setup"], "globus, 2 clusters")
        left = panel(doc, "left")
        # Receiving from the other cluster: column 1 in direction left.
        self.assertEqual([row[1] for row in left["values"]], [6.03, 5.98, 6.66, 6.30])
        # The caption says a direction is an exchange step, not a neighbour.
        item = [i for i in read_json(os.path.join(OUT, "manifest.json"))["items"]
                if i["id"] == "fig10-rank-comm-directions"][0]
        self.assertTrue(any("exchange step, not a neighbour" in n and "right neighbour's" in n
                            for n in item["notes"]), item["notes"])

    def test_fig11_normalises_each_mode_by_its_own_baseline(self):
        doc = data("fig11-comm-normalised")
        sync, nosync = doc["panels"]
        self.assertEqual((sync["mode"], nosync["mode"]), ("synchronized", "non-synchronized"))
        last = sync["x"].index("10000x10000")
        self.assertAlmostEqual(sync["series"][3]["y"][last], 358 / 12.3)
        self.assertAlmostEqual(nosync["series"][3]["y"][last], 172 / 12.7)

    def test_fig12_is_in_megabytes_per_second(self):
        doc = data("fig12-transfer-rate")
        p = doc["panels"][0]
        self.assertEqual(p["ylabel"], "transfer rate (MB/s)")
        pbs = [s for s in p["series"] if s["label"] == "pbs, 1 cluster"][0]
        at = p["x"].index("4000x4000")
        # The paper: "The highest data transfer rate for PBS is 35 Mbyte/s for grid size 4000".
        self.assertAlmostEqual(pbs["y"][at], 2 * 4000 * 8 * 2644 / 4.88 / 1e6, places=6)
        self.assertEqual(round(max(pbs["y"])), 35)
        # Legend in the curves' top-to-bottom order at the right-most grid size.
        ends = [s["y"][-1] for s in p["series"]]
        self.assertEqual(ends, sorted(ends, reverse=True))
        self.assertEqual(p["legend"], [s["label"] for s in p["series"]])


class Options(TempDirTest):
    def test_fig9_grids_and_fig10_choice(self):
        proc = run("measurement.py", "--calibration", PAPER, "--output", self.tmp, "--baseline",
                   "pbs", "--fig9-grids", "4000", "--fig10-grid", "4000x4000",
                   "--fig10-clusters", "4")
        self.assertOk(proc)
        doc = read_json(self.path("fig9-rank-comm.json"))
        self.assertEqual(doc["problems"], ["4000x4000"])
        self.assertEqual(len(doc["panels"]), 4)
        # Only totals were published for 4000x4000: Figure 10 is skipped, saying why.
        self.assertFalse(os.path.exists(self.path("fig10-rank-comm-directions.json")))
        skipped = read_json(self.path("manifest.json"))["skipped"]
        self.assertEqual(skipped, [{"id": "fig10-rank-comm-directions", "reason":
                                    "no per-direction times for globus, 4 clusters at grid "
                                    "4000x4000"}])

    def test_default_baseline_is_the_first_one_cluster_system(self):
        proc = run("measurement.py", "--calibration", PAPER, "--output", self.tmp)
        self.assertOk(proc)
        doc = read_json(self.path("fig4-runtime-normalised.json"))
        self.assertEqual(doc["panels"][0]["baseline"], "globus, 1 cluster")

    def test_unknown_values_are_refused(self):
        self.assertBadInput(run("measurement.py", "--calibration", PAPER, "--output", self.tmp,
                                "--procs", "9x9"), "--procs", "9x9", "4x4")
        self.assertBadInput(run("measurement.py", "--calibration", PAPER, "--output", self.tmp,
                                "--baseline", "nowhere"), "--baseline", "nowhere", "pbs")
        self.assertBadInput(run("measurement.py", "--calibration", PAPER, "--output", self.tmp,
                                "--fig9-grids", "123"), "--fig9-grids", "123")
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == "__main__":
    unittest.main()
