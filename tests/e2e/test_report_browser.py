"""`mine stats` and `mine report` with the real binary, and the report rendered by a real browser.

The corpus is tests/fixtures/triton scanned twice (once from a folder whose name is hostile
HTML, so every kernel is an exact duplicate and the repository name must come out escaped),
deduplicated, with a synthetic check results file ingested so the check and autotune charts have
data. Debian's headless chromium then loads the page: no console messages, no CSP refusals, the
SVG charts in the DOM, and a screenshot that is not blank. Without chromium the browser part is
skipped with a message (MINE_SETUP_BROWSER=1 ./scripts/setup.sh installs it)."""
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest

MINE = os.environ["MINE"]
SOURCE = os.environ.get("MINE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.environ.get("MINE_FIXTURES_DIR", os.path.join(SOURCE, "tests", "fixtures"))
HOSTILE = 'evil<img src=x onerror=alert(1)>&"\''
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def mine(*args, check=True):
    return subprocess.run([MINE, *args], check=check, capture_output=True, text=True)


def synthetic_results(kernel_ids):
    """Check outcomes spread over stages and error classes; autotune timings on the passing runs."""
    rows = []
    fails = [("import", "syntax"), ("compile", "type_error"), ("compile", "unsupported_op"),
             ("load", "resource_limit"), ("run", "illegal_address")]
    for i, kid in enumerate(kernel_ids):
        if i % 3 == 2:
            stage, cls = fails[i % len(fails)]
            rows.append({"id": kid, "stage_requested": "run", "stage_reached": stage, "status": "fail",
                         "error_class": cls, "message": "synthetic " + cls})
        else:
            best = 0.1 + 0.01 * i
            rows.append({"id": kid, "stage_requested": "run", "stage_reached": "run", "status": "ok",
                         "message": "", "run_ms": best, "arch": "sm_90",
                         "configs": [{"constexprs": {"BLOCK": b}, "options": {"num_warps": 4}, "time_ms": best * f}
                                     for b, f in ((64, 1.0), (128, 1.0 + (i % 5) * 0.6), (256, 1.2))]})
    return "".join(json.dumps(r) + "\n" for r in rows)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", head[16:24])


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="mine_report_")
        cls.db = os.path.join(cls.tmp, "corpus.db")
        hostile_dir = os.path.join(cls.tmp, HOSTILE)
        shutil.copytree(os.path.join(FIXTURES, "triton"), hostile_dir)
        mine("scan", os.path.join(FIXTURES, "triton"), hostile_dir, "--db", cls.db, "-q")
        mine("dedup", "--db", cls.db, "-q")
        ids = [r["id"] for r in json.loads(mine("query", "SELECT id FROM kernels ORDER BY id", "--db", cls.db,
                                                 "--format", "json").stdout)]
        results = os.path.join(cls.tmp, "results.jsonl")
        with open(results, "w") as f:
            f.write(synthetic_results(ids))
        mine("check", "--ingest", results, "--db", cls.db, "-q")
        cls.html_path = os.path.join(cls.tmp, "report.html")
        mine("report", "--db", cls.db, "--out", cls.html_path, "-q")
        with open(cls.html_path, encoding="utf-8") as f:
            cls.html = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_stats_json_has_every_section(self):
        stats = json.loads(mine("stats", "--db", self.db, "--format", "json").stdout)
        sections = stats["sections"]
        self.assertEqual(sections["overview"]["rows"][0]["repositories"], 2)
        kernels = sections["overview"]["rows"][0]["kernels"]
        self.assertGreater(kernels, 10)
        self.assertEqual(sum(r["kernels"] for r in sections["top_repositories"]["rows"]), kernels)
        exact = [r for r in sections["dup_clusters"]["rows"] if r["level"] == "exact"][0]
        self.assertEqual(exact["duplicates"], kernels // 2)  # every kernel has one copy
        self.assertEqual(sum(r["kernels"] for r in sections["check_outcomes"]["rows"]), kernels)
        run = [r for r in sections["check_pass_rate"]["rows"] if r["stage"] == "run"][0]
        self.assertLess(run["passed"], run["attempted"])
        self.assertTrue(sections["autotune_speedups"]["rows"])
        self.assertIn("SELECT", sections["license_mix"]["sql"])

    def test_stats_table_and_usage_errors(self):
        out = mine("stats", "--db", self.db).stdout
        self.assertIn("Check pass rate by stage", out)
        self.assertIn("Top repositories by kernel count", out)
        bad = mine("stats", "--db", self.db, "--format", "xml", check=False)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--format", bad.stderr)
        missing = mine("stats", "--db", os.path.join(self.tmp, "nope.db"), check=False)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("mine scan", missing.stderr)

    def test_page_is_self_contained_and_escaped(self):
        self.assertNotIn("<script", self.html.lower())
        # The only URL allowed is the SVG namespace name, which is never fetched.
        urls = set(re.findall(r"(?:https?:)?//[\w.-]+", self.html))
        self.assertLessEqual(urls, {"http://www.w3.org"}, urls)
        self.assertNotIn("<img", self.html)
        self.assertIn("evil&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;", self.html)
        self.assertGreaterEqual(self.html.count("<svg"), 7)
        self.assertEqual(self.html.count("<details><summary>SQL"), self.html.count("<section"))

    def test_written_whole(self):
        leftovers = [n for n in os.listdir(self.tmp) if n.startswith("report.html") and n != "report.html"]
        self.assertEqual(leftovers, [])
        self.assertTrue(self.html.rstrip().endswith("</html>"))

    def chromium(self, url, *extra):
        profile = tempfile.mkdtemp(dir=self.tmp)
        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0", *extra, url]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=180)

    @staticmethod
    def console_lines(stderr):
        return [l for l in stderr.splitlines() if ":CONSOLE" in l or "Refused to" in l]

    def test_browser_renders_charts_without_console_errors(self):
        if not CHROMIUM:
            self.skipTest("chromium not installed: run MINE_SETUP_BROWSER=1 ./scripts/setup.sh to render the report")
        # Control: a page that logs an error must be caught, or the check below proves nothing.
        control = os.path.join(self.tmp, "control.html")
        with open(control, "w") as f:
            f.write('<!DOCTYPE html><p>x</p><script>console.error("mine-control")</script>')
        self.assertTrue(any("mine-control" in l for l in self.console_lines(
            self.chromium("file://" + control, "--dump-dom").stderr)), "console capture does not work")

        shown = self.chromium("file://" + self.html_path, "--dump-dom")
        self.assertEqual(shown.returncode, 0, shown.stderr[-2000:])
        self.assertEqual(self.console_lines(shown.stderr), [])
        dom = shown.stdout
        self.assertGreaterEqual(dom.count("<svg"), 7)
        for chart in ("top_repositories", "check_pass_rate", "check_error_classes", "autotune_speedups",
                      "dedup_funnel", "kernel_sizes"):
            section = re.search(r'<section id="%s">(.*?)</section>' % chart, dom, re.S)
            self.assertIsNotNone(section, chart)
            self.assertIn("<svg", section.group(1), chart)
            self.assertIn("<rect", section.group(1), chart)
        self.assertNotIn("<img", dom)  # the hostile repository name stayed text

        png = os.path.join(self.tmp, "report.png")
        shot = self.chromium("file://" + self.html_path, "--screenshot=" + png, "--window-size=1200,2000",
                             "--hide-scrollbars")
        self.assertEqual(shot.returncode, 0, shot.stderr[-2000:])
        self.assertEqual(png_size(png), (1200, 2000))
        self.assertGreater(os.path.getsize(png), 30000, "screenshot looks blank")
        if os.environ.get("MINE_REPORT_PNG"):
            shutil.copy(png, os.environ["MINE_REPORT_PNG"])


if __name__ == "__main__":
    unittest.main()
