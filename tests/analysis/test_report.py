"""report.py: the report shows every table and figure of its parts, names every input file with
its digest, and stands alone as one HTML file."""

import os
import re
import shutil
import tempfile
import unittest

from support import FIXTURES, PAPER, SOURCE, SWEEPS, TempDirTest, read_json, run

WORK = None


def setUpModule():
    global WORK
    WORK = tempfile.mkdtemp(prefix="mcb-analysis-report-")
    steps = [("measurement.py", "--calibration", PAPER, "--output", os.path.join(WORK, "meas"),
              "--baseline", "pbs", "--title", "DAS-2 measurements"),
             ("simulation.py", *sum((["--sweep", s] for s in SWEEPS), []), "--output",
              os.path.join(WORK, "sim"), "--title", "DAS-2 tables"),
             ("simulation.py", "--sweep", os.path.join(FIXTURES, "one-point"), "--output",
              os.path.join(WORK, "one"), "--title", "One run")]
    for step in steps:
        proc = run(*step)
        if proc.returncode != 0:
            raise RuntimeError(f"{step[0]} failed: {proc.stderr}")
    with open(os.path.join(WORK, "intro.md"), "w", encoding="utf-8") as f:
        f.write("Made by the **analysis tests**.\n\n- first point\n- `second` point\n"
                "- **Measure** (317 s): a bullet written over two lines,\n  each run verifying "
                "itself\n- last point\n")
    with open(os.path.join(WORK, "campaign.ini"), "w", encoding="utf-8") as f:
        f.write("[poisson]\ngrid = 100\n")
    proc = run("report.py", "--part", os.path.join(WORK, "meas"), "--part",
               os.path.join(WORK, "sim"), "--part", os.path.join(WORK, "one"), "--output", os.path.join(WORK, "report"), "--title",
               "Test report", "--intro", os.path.join(WORK, "intro.md"), "--attach",
               "campaign=" + os.path.join(WORK, "campaign.ini"), "--summary", "table-saturation")
    if proc.returncode != 0:
        raise RuntimeError(f"report.py failed: {proc.stderr}")


def tearDownModule():
    shutil.rmtree(WORK, ignore_errors=True)


def text(name):
    with open(os.path.join(WORK, "report", name), encoding="utf-8") as f:
        return f.read()


class Report(TempDirTest):
    def test_markdown_shows_every_item_and_links_existing_files(self):
        md = text("report.md")
        self.assertTrue(md.startswith("# Test report\n"))
        self.assertIn("Made by the **analysis tests**.", md)
        for part in ("meas", "sim"):
            for item in read_json(os.path.join(WORK, part, "manifest.json"))["items"]:
                if item["kind"] == "table":
                    self.assertIn(f"### {item['title']}", md)
                else:  # the title is drawn in the picture; a heading would repeat it
                    self.assertIn(f"![{item['title']}](", md)
                    self.assertNotIn(f"### {item['title']}", md)
        links = re.findall(r"\]\(([^)#]+)\)", md)
        self.assertGreater(len(links), 20)
        for link in links:
            self.assertTrue(os.path.exists(os.path.join(WORK, "report", link)), link)
        # Table 3's 4000x4000 row, as the paper prints it.
        self.assertIn("| 4000x4000 | 701 | 706 | 712 | 720 | 733 | 766 | 743 | 750 | 757 | 728 "
                      "| 751 | 794 |", md)

    def test_report_names_the_inputs_it_used(self):
        md = text("report.md")
        doc = read_json(os.path.join(WORK, "report", "report.json"))
        used = [i for part in doc["parts"] for i in part["inputs"]]
        paths = {os.path.basename(i["path"]) for i in used}
        self.assertTrue({"runtimes.csv", "runtimes.json", "rank_comm.csv", "comm_time.csv",
                         "sweep.csv", "sweep.json"} <= paths, paths)
        self.assertIn(os.path.join(SWEEPS[1], "sweep.csv"), [i["path"] for i in used])
        # The das2 tables the sweeps replayed are inputs too.
        self.assertTrue(any(i["path"].endswith(os.path.join("calibration", "das2",
                                                            "runtimes.csv")) for i in used))
        for i in used:
            # Inside the results folder relative to it, inside the suite's source as {mcb}/...
            shown = os.path.relpath(i["path"], WORK) if i["path"].startswith(WORK + os.sep) \
                else "{mcb}/" + os.path.relpath(i["path"], SOURCE)
            self.assertIn(f"`{shown}` | `{i['sha256']}`", md)
            self.assertRegex(i["sha256"], r"^[0-9a-f]{64}$")  # the whole digest
        self.assertIn("## Provenance", md)
        self.assertIn("hosts: DAS-2", md)
        self.assertIn("mix **ensflow**", md)
        self.assertIn("3000 jobs per point", md)
        self.assertEqual(doc["attachments"][0]["label"], "campaign")

    def test_every_number_has_a_source_line(self):
        md = text("report.md")
        sections = {}
        for s in md.split('<a id="')[1:]:
            anchor, _, body = s.partition('"></a>')
            sections[anchor] = body
        count = 0
        for part in ("meas", "sim"):
            for item in read_json(os.path.join(WORK, part, "manifest.json"))["items"]:
                self.assertIn("*Source:*", sections[item["id"]], item["id"])
                count += 1
        self.assertEqual(count, 15)

    def test_html_is_self_contained(self):
        page = text("report.html")
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        sources = re.findall(r'src="([^"]*)"', page)
        self.assertEqual(len(sources), 12)  # every figure of the three parts
        for s in sources:
            self.assertTrue(s.startswith("data:image/png;base64,"), s[:40])
        self.assertNotIn("<link", page)
        # Every link is within the page: the data files are embedded, so none breaks when the
        # report is moved (no ../ into the results folder).
        links = re.findall(r'href="([^"]*)"', page)
        self.assertGreater(len([h for h in links if h.startswith("data:")]), 20)
        for h in links:
            self.assertTrue(h.startswith(("#", "data:")), h[:60])
        self.assertIn('download="fig5-response-vs-gross.json" href="data:application/json;base64,',
                      page)
        self.assertIn('<th colspan="3">pbs, 1 cluster</th>', page)
        self.assertIn("<strong>analysis tests</strong>", page)
        self.assertIn("<li><code>second</code> point</li>", page)
        self.assertIn("[poisson]\ngrid = 100", page)


class Structure(TempDirTest):
    """The page as a reader sees it: whole list items, paths relative to the results folder."""

    def test_contents_name_every_section_and_tell_items_apart(self):
        md = text("report.md")
        contents = md.split("## Contents\n", 1)[1].split("\n\n", 1)[0]
        entries = re.findall(r"^\s*- \[([^\]]+)\]\(#([^)]+)\)", contents, re.M)
        self.assertIn(("Configuration files", "configuration-files"), entries)
        self.assertIn('<a id="configuration-files"></a>', md)
        names = [name for name, _ in entries]
        self.assertEqual(len(names), len(set(names)), names)
        for _, anchor in entries:
            self.assertIn(f'<a id="{anchor}"></a>', md, anchor)

    def test_html_lists_hold_whole_items(self):
        page = text("report.html")
        items = [" ".join(i.split()) for i in re.findall(r"<li>(.*?)</li>", page, re.S)]
        self.assertIn("<strong>Measure</strong> (317 s): a bullet written over two lines, "
                      "each run verifying itself", items)
        self.assertIn("last point", items)
        # No paragraph right after a list continues a sentence: nothing was cut off an item.
        self.assertEqual(re.findall(r"</ul>\s*<p>([a-z][^<]{0,40})", page), [])

    def test_paths_are_relative_to_the_results_folder(self):
        md = text("report.md")
        body = md.split("\n", 3)[3]  # after the line naming the results and source folders
        self.assertNotIn(WORK + os.sep, body)
        self.assertNotIn(SOURCE + os.sep, body)
        self.assertIn("{mcb}/tests/fixtures/analysis/", body)
        for page in (body, text("report.html").split("</p>", 1)[1]):
            self.assertEqual(re.findall(r"(?<![\w>.])/(?:work|tmp|home|root)/\S*", page), [])
        for link in re.findall(r"\]\(([^)#]+)\)", md):
            self.assertFalse(os.path.isabs(link), link)


class Summary(TempDirTest):
    """The page opens with the summary: the introduction, then the items asked for at the top
    (the saturation table), before the contents and the details."""

    def test_saturation_table_comes_first(self):
        md = text("report.md")
        top, details = md.split("## Contents\n", 1)
        self.assertIn("### Largest utilization before saturation", top)
        self.assertLess(top.index("Made by the **analysis tests**."),
                        top.index("### Largest utilization before saturation"))
        self.assertNotIn("### Largest utilization before saturation", details)
        self.assertIn("](#table-saturation): in the summary at the top.", details)
        page = text("report.html")
        self.assertLess(page.index("Largest utilization before saturation"),
                        page.index("Contents"))

    def test_unknown_summary_item(self):
        proc = run("report.py", "--part", os.path.join(WORK, "sim"), "--output",
                   self.path("out"), "--summary", "table-nothing")
        self.assertBadInput(proc, "--summary", "table-nothing")
        self.assertFalse(os.path.exists(self.path("out")))


class BadParts(TempDirTest):
    def test_folder_without_manifest(self):
        proc = run("report.py", "--part", self.tmp, "--output", self.path("out"))
        self.assertBadInput(proc, "manifest.json", "no such file")
        self.assertFalse(os.path.exists(self.path("out")))

    def test_manifest_naming_a_missing_file(self):
        part = self.path("part")
        shutil.copytree(os.path.join(WORK, "sim"), part)
        os.unlink(os.path.join(part, "table-saturation.csv"))
        proc = run("report.py", "--part", part, "--output", self.path("out"))
        self.assertBadInput(proc, "manifest.json", "table-saturation", "missing")

    def test_empty_manifest_and_missing_attachment(self):
        part = self.path("part")
        os.makedirs(part)
        open(os.path.join(part, "manifest.json"), "w").close()
        self.assertBadInput(run("report.py", "--part", part, "--output", self.path("out")),
                            "manifest.json", "empty file")
        self.assertBadInput(run("report.py", "--part", os.path.join(WORK, "sim"), "--output",
                                self.path("out"), "--attach", "x=" + self.path("none.ini")),
                            "--attach", "none.ini")


if __name__ == "__main__":
    unittest.main()
