"""analysis/redundant_figures.py on a study of one replication per point
(MCB_REDUNDANT_REPLICATIONS=1 scripts/study-redundant.sh, 300 jobs): one seed has no interval,
so the figures are drawn without error bars (matplotlib refuses bars none of which is finite)
and every observation still gets its verdict."""

import os
import shutil
import tempfile
import unittest

from support import FIXTURES, run

STUDY = os.path.join(FIXTURES, "redundant-one-replication")


class OneReplication(unittest.TestCase):
    def test_figures_and_observations_without_intervals(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = run("redundant_figures.py", STUDY, "--output", tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            for name in ("fig1-fcfs.png", "fig1-cons.png", "fig2-local.png", "fig5-hetero.png",
                         "fig3-coalloc.png", "fig4-hibernation.png"):
                self.assertGreater(os.path.getsize(os.path.join(tmp, name)), 1000, name)
            with open(os.path.join(tmp, "redundant.md"), encoding="utf-8") as f:
                text = f.read()
            self.assertIn("| fig3-dup |", text)
            self.assertIn("± inf", text)


if __name__ == "__main__":
    unittest.main()
