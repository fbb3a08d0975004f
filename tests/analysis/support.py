"""Shared by the analysis tests: where things are, and running the analysis scripts as a user
does (a separate /usr/bin/python3 process, exit code and output checked)."""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("MCB_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
FIXTURES = os.path.join(os.environ.get("MCB_FIXTURES_DIR", os.path.join(SOURCE, "tests",
                                                                          "fixtures")), "analysis")
BIN = os.environ.get("MCB_BIN_DIR", "")
ANALYSIS = os.path.join(SOURCE, "analysis")
PYTHON = os.environ.get("MCB_ANALYSIS_PYTHON", sys.executable)
PAPER = os.path.join(FIXTURES, "das2-appendix")
SWEEPS = [os.path.join(FIXTURES, "sweeps", m) for m in ("poisson", "ensflow", "mixed")]


def run(script, *args, cwd=None):
    """Runs analysis/<script> with args; returns the CompletedProcess (text)."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([PYTHON, os.path.join(ANALYSIS, script), *args], capture_output=True,
                          text=True, cwd=cwd or SOURCE, env=env, timeout=300)


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


class TempDirTest(unittest.TestCase):
    """A test with a fresh temporary folder, removed afterwards."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="mcb-analysis-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def write_jsonl(self, records, name="runs.jsonl"):
        """The records as a JSON Lines file in the test's folder; returns its path."""
        path = self.path(name)
        with open(path, "w", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
        return path

    def assertOk(self, proc):
        self.assertEqual(proc.returncode, 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")

    def assertBadInput(self, proc, *fragments):
        """Exit code 2 and exactly one line on stderr containing every fragment."""
        self.assertEqual(proc.returncode, 2, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        for f in fragments:
            self.assertIn(f, lines[0])

    def assertPicture(self, png, svg):
        """The PNG opens as an image of a sensible size; the SVG parses as SVG."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.image as mpimg
        import xml.etree.ElementTree as ET
        image = mpimg.imread(png)
        self.assertGreater(image.shape[0], 200)
        self.assertGreater(image.shape[1], 300)
        root = ET.parse(svg).getroot()
        self.assertTrue(root.tag.endswith("svg"), root.tag)
