"""The parts of the main job that live in the analysis package: the link-scaling fit
(mcb_analysis.link_scale, analysis/main_job_links.py) and the report's introduction
(mcb_analysis.main_job_intro, analysis/main_job_intro.py)."""

import os
import sys
import unittest

from support import ANALYSIS, TempDirTest, run

sys.path.insert(0, ANALYSIS)

from mcb_analysis import link_scale  # noqa: E402
from mcb_analysis.main_job_intro import FACTS, intro_markdown  # noqa: E402


class LinkScale(unittest.TestCase):
    def test_reference_link_scaled_in_latency_and_bandwidth_together(self):
        self.assertEqual(link_scale.link(1.0), ("1000us", "100Mbit/s"))
        self.assertEqual(link_scale.link(0.5), ("500us", "200Mbit/s"))
        # Below 5 us the emulation's wake-up dominates: the latency stops there.
        self.assertEqual(link_scale.link(0.001), ("5us", "20000Mbit/s"))

    def test_first_scale_is_the_penalty_over_the_links_share(self):
        # The link adds 0.002 s to 0.01 s per iteration; 18% of 0.01 s is 0.0018 s.
        self.assertEqual(link_scale.first_scale(0.18, 0.01, 0.012, 1.0), "0.9")
        self.assertEqual(link_scale.first_scale(0.18, 0.01, 0.0125, 1.0), "0.72")

    def test_first_scale_is_capped_when_two_clusters_are_no_slower(self):
        self.assertEqual(link_scale.first_scale(0.18, 0.02, 0.019, 1.0), "1")
        self.assertEqual(link_scale.first_scale(0.18, 0.02, 0.02, 0.5), "0.5")

    def test_final_scale_where_the_line_through_both_probes_meets_the_target(self):
        # W(s) = 0.0005 + 0.002 s: W(1) = 0.0025, W(0.5) = 0.0015; 0.18 x 0.01 = 0.0018 at
        # s = 0.65.
        s, w_ref, probed = link_scale.final_scale(0.18, 0.01, 0.0125, 0.5, 0.01, 0.0115, 1.0)
        self.assertAlmostEqual(s, 0.65)
        self.assertAlmostEqual(w_ref, 0.0025)
        self.assertAlmostEqual(probed, 1.15)

    def test_final_scale_stays_within_a_factor_four_of_the_first(self):
        # Probes that contradict a line (the cost falls as the link slows): the first scale.
        s, _, _ = link_scale.final_scale(0.18, 0.01, 0.012, 0.5, 0.01, 0.0130, 1.0)
        self.assertAlmostEqual(s, 0.5)
        # A line that asks for 40 times the first scale is held at four times.
        s, _, _ = link_scale.final_scale(0.18, 0.01, 0.01001, 0.01, 0.01, 0.010001, 1.0)
        self.assertAlmostEqual(s, 0.04)

    def test_the_line_through_both_probes_gives_the_floor(self):
        # W(s) = 0.0005 + 0.002 s, as above: the floor is 0.0005 s per iteration.
        a, b = link_scale.line(0.01, 0.0125, 0.5, 0.01, 0.0115)
        self.assertAlmostEqual(a, 0.0005)
        self.assertAlmostEqual(b, 0.002)

    def test_grid_is_kept_when_the_links_share_is_well_above_the_floor(self):
        # 0.18 x 0.01 = 0.0018 s against three times a floor of 0.0005 s.
        self.assertEqual(link_scale.grid_for(0.18, 0.01, 0.0005, 1024), 1024)
        # A floor the probes' noise made negative says nothing: the grid stays.
        self.assertEqual(link_scale.grid_for(0.18, 0.01, -0.001, 1024), 1024)

    def test_grid_grows_with_the_square_root_of_the_missing_share(self):
        # The share 0.18 x 0.001 = 0.00018 s against a floor of 0.0001 s: the compute must grow
        # 3 x 0.0001 / 0.00018 = 1.67 times, the grid sqrt(1.67) = 1.29 times, to 1322, rounded
        # up to a multiple of 256.
        self.assertEqual(link_scale.grid_for(0.18, 0.001, 0.0001, 1024), 1536)
        # A floor of 0.00053 s (a fast core) asks for 2.97 times, 3043: held at twice the start.
        self.assertEqual(link_scale.grid_for(0.18, 0.001, 0.00053, 1024), 2048)

    def test_grid_line_is_what_the_main_job_reads(self):
        # W(1) = 0.005, W(0.05) = 0.0006: b = 0.0044 / 0.95, floor 0.000368 = 0.368 of T1.
        self.assertEqual(link_scale.grid_line(0.18, 0.001, 0.006, 0.05, 0.001, 0.0016, 1024),
                         "2048 0.368")

    def test_final_line_is_what_the_main_job_reads(self):
        self.assertEqual(link_scale.final_line(0.18, 0.01, 0.012, 0.9, 0.01, 0.0119, 1.0),
                         "800us 125Mbit/s 0.8 0.01 0.002 1.19")


class LinkScaleProgram(TempDirTest):
    def test_first_and_final_print_one_line(self):
        proc = run("main_job_links.py", "first", "--target", "0.18", "--max-scale", "1",
                   "0.01", "0.012")
        self.assertOk(proc)
        self.assertEqual(proc.stdout, "900us 111Mbit/s 0.9\n")
        proc = run("main_job_links.py", "final", "--target", "0.18", "--max-scale", "1",
                   "0.01", "0.012", "0.9", "0.01", "0.0119")
        self.assertOk(proc)
        self.assertEqual(proc.stdout, "800us 125Mbit/s 0.8 0.01 0.002 1.19\n")

    def test_grid_prints_the_grid_and_the_floors_share(self):
        proc = run("main_job_links.py", "grid", "--target", "0.18", "--grid", "1024",
                   "0.001", "0.006", "0.05", "0.001", "0.0016")
        self.assertOk(proc)
        self.assertEqual(proc.stdout, "2048 0.368\n")
        self.assertBadInput(run("main_job_links.py", "grid", "--target", "0.18", "--grid",
                                "1e3", "0.001", "0.006", "0.05", "0.001", "0.0016"),
                            "--grid", "1e3")

    def test_a_time_that_is_not_a_positive_number_is_refused(self):
        self.assertBadInput(run("main_job_links.py", "first", "--target", "0.18",
                                "--max-scale", "1", "0.01", "fast"), "T2", "fast")
        self.assertBadInput(run("main_job_links.py", "first", "--target", "0.18",
                                "--max-scale", "1", "0", "0.01"), "T1", "positive")


def facts(**changed):
    f = {name: f"<{name}>" for name in FACTS}
    f.update(systems="ensflow:emu-a;poisson:emu-a,local", p_appendix_clusters="1 2 4",
             p_sizes="1 2", e_sizes="1:1;2:1 2;", penalty="PENALTY TABLE")
    f.update(changed)
    return f


class Intro(unittest.TestCase):
    def test_every_fact_appears_and_lists_are_joined_as_printed(self):
        text = intro_markdown(facts())
        for name in FACTS:
            if name not in ("systems", "p_appendix_clusters", "p_sizes", "e_sizes", "penalty"):
                self.assertIn(f"<{name}>", text, name)
        self.assertIn("says what was emulated: ensflow:emu-a; poisson:emu-a,local.", text)
        self.assertIn("grid sizes <p_grids> on 1, 2, 4 clusters", text)
        self.assertIn("and on 1, 2 processes at", text)
        self.assertIn("\n  1 processes (components: 1); 2 processes (components: 1 2); \n", text)
        # A short summary first (what ran, then the penalty against the paper's), the details
        # of each stage after it.
        self.assertTrue(text.startswith("**What ran:** the main job of mcb on <host> (<cores> "
                                        "cores)"))
        self.assertLess(text.index("\n\nPENALTY TABLE\n\n"), text.index("**Details of each"))
        self.assertLess(text.index("**Details of each"), text.index("- **Measure**"))
        self.assertNotIn("DAS-2\nreplay shows", text)  # no such section in the report
        self.assertTrue(text.endswith("the min/avg/max of the repetitions show the noise.\n"))

    def test_a_missing_fact_is_named(self):
        f = facts()
        del f["reps"]
        with self.assertRaisesRegex(KeyError, "reps"):
            intro_markdown(f)


class IntroProgram(TempDirTest):
    def test_writes_the_introduction(self):
        out = self.path("intro.md")
        proc = run("main_job_intro.py", "--output", out,
                   *[f"{k}={v}" for k, v in facts(host="node7").items()])
        self.assertOk(proc)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), intro_markdown(facts(host="node7")))

    def test_missing_unknown_or_repeated_facts_are_refused_and_nothing_written(self):
        out = self.path("intro.md")
        pairs = [f"{k}={v}" for k, v in facts().items()]
        self.assertBadInput(run("main_job_intro.py", "--output", out, *pairs[1:]), "host")
        self.assertBadInput(run("main_job_intro.py", "--output", out, *pairs, "colour=red"),
                            "colour")
        self.assertBadInput(run("main_job_intro.py", "--output", out, *pairs, pairs[0]),
                            "twice")
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
