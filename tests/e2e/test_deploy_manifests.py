#!/usr/bin/env python3
"""deploy/ is documentation people copy and run: its manifests must parse, and every `mine ...`
command in them (and in deploy/README.md) may only use options `mine <command> --help` lists.
The --shard N of an Indexed Job or array must equal its number of completions or tasks."""
import os
import re
import shlex
import subprocess
import sys
import unittest

SOURCE = os.environ.get("MINE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(SOURCE, "deploy")
MINE = os.environ.get("MINE")

try:
    import yaml  # PyYAML, when installed
except ImportError:
    yaml = None

_help_cache = {}


def help_options(command):
    if command not in _help_cache:
        out = subprocess.run([MINE, command, "--help"], capture_output=True, text=True, check=True).stdout
        _help_cache[command] = set(re.findall(r"--[a-z][a-z0-9-]*", out))
    return _help_cache[command]


def commands_in_text(text):
    """Every `mine <command> ...` in shell text, backslash continuations joined, as argv lists."""
    joined = re.sub(r"\\\n", " ", text)
    found = []
    for line in joined.splitlines():
        for m in re.finditer(r"(?:^|[\s;&|(`])mine\s+([a-z]+)\b", line):
            rest = line[m.start(1):]
            rest = re.split(r"\s(?:&&|\|\||;|\|)\s|`", rest)[0]
            try:
                argv = shlex.split(rest, comments=True)
            except ValueError:
                argv = rest.split()
            found.append(argv)
    return found


def yaml_containers(doc):
    spec = doc.get("spec", {})
    return spec.get("template", {}).get("spec", {}).get("containers", []), spec


class DeployManifests(unittest.TestCase):
    def manifests(self):
        paths = []
        for root, _, files in os.walk(DEPLOY):
            paths += [os.path.join(root, f) for f in sorted(files)]
        return paths

    def test_files_exist(self):
        for rel in ["k8s/crawl-indexed-job.yaml", "k8s/check-gpu-job.yaml", "slurm/crawl-array.sbatch", "README.md"]:
            self.assertTrue(os.path.isfile(os.path.join(DEPLOY, rel)), rel)

    def test_yaml_parses_and_shards_match_completions(self):
        if yaml is None:
            self.skipTest("PyYAML is not installed: the YAML parse is not checked (the option checks still run)")
        for path in self.manifests():
            if not path.endswith((".yaml", ".yml")):
                continue
            with open(path) as f:
                docs = [d for d in yaml.safe_load_all(f) if d]
            self.assertTrue(docs, path)
            for doc in docs:
                self.assertIn("kind", doc, path)
                if doc["kind"] != "Job":
                    continue
                containers, spec = yaml_containers(doc)
                self.assertTrue(containers, path)
                for c in containers:
                    argv = list(c.get("command", [])) + list(c.get("args", []))
                    self.assertTrue(all(isinstance(a, str) for a in argv), f"{path}: quote every argument")
                    if argv[:1] == ["mine"]:
                        self.check_mine(argv, path)
                        if "--shard" in argv:
                            self.assertEqual(spec.get("completionMode"), "Indexed", path)
                            shard = argv[argv.index("--shard") + 1]
                            self.assertEqual(shard, f"$(JOB_COMPLETION_INDEX)/{spec['completions']}", path)
                    if any("run_bundle.py" in a for a in argv):
                        self.assertIn("nvidia.com/gpu", c.get("resources", {}).get("limits", {}), path)
                        self.check_harness(argv, path)

    def check_harness(self, argv, path):
        script = os.path.join(SOURCE, "kernels", "harness", "run_bundle.py")
        out = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True, check=True).stdout
        known = set(re.findall(r"--[a-z][a-z0-9-]*", out))
        for a in argv:
            if a.startswith("--"):
                self.assertIn(a.split("=")[0], known, f"{path}: run_bundle.py has no {a}")

    def check_mine(self, argv, path):
        self.assertEqual(argv[0], "mine")
        command = argv[1]
        known = help_options(command)
        for a in argv[2:]:
            if a.startswith("--"):
                self.assertIn(a.split("=")[0], known, f"{path}: `mine {command}` has no {a}")

    def test_every_mine_command_uses_real_options(self):
        seen = 0
        commands = {c for c in re.findall(r"^  ([a-z]+) ", subprocess.run([MINE, "--help"], capture_output=True,
                                                                        text=True).stdout, re.M)}
        for path in self.manifests():
            with open(path) as f:
                text = f.read()
            if path.endswith((".yaml", ".yml")):
                continue  # containers are checked argument by argument above
            for argv in commands_in_text(text):
                if argv and argv[0] in commands:
                    self.check_mine(["mine"] + argv, path)
                    seen += 1
        self.assertGreater(seen, 5, "deploy/README.md and the sbatch script should show the whole workflow")

    def test_slurm_shard_count_matches_array(self):
        with open(os.path.join(DEPLOY, "slurm", "crawl-array.sbatch")) as f:
            text = f.read()
        lo, hi = map(int, re.search(r"#SBATCH --array=(\d+)-(\d+)", text).groups())
        n = int(re.search(r"^N=(\d+)$", text, re.M).group(1))
        self.assertEqual((lo, hi + 1), (0, n))
        self.assertIn('--shard "$SLURM_ARRAY_TASK_ID/$N"', text)
        argv = [a for a in commands_in_text(text) if a[:1] == ["crawl"]]
        self.assertTrue(argv)
        self.assertIn("--shard", argv[0])

    def test_shard_values_are_accepted_by_mine(self):
        # The exact forms the manifests produce, through the real parser (a bad one exits 2).
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(8):
                r = subprocess.run([MINE, "scan", tmp, "--shard", f"{k}/8", "--db", os.path.join(tmp, "c.db"),
                                    "--quiet"], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    if not MINE:
        sys.exit("set MINE to the mine binary")
    unittest.main()
