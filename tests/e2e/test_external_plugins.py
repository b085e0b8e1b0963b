"""External plugins end to end: `cmake --install` ships the SDK, examples/plugin builds out of tree
against it and is loaded from --plugin-dir and $MINE_PLUGIN_PATH; a plugin built for another ABI
is refused naming both versions; a declarative plugin (query + manifest, nothing compiled) adds
a DSL. Kernels and their dependencies are checked against the fixtures' `# expect:` lines."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

MINE = os.environ["MINE"]
SOURCE = os.environ["MINE_SOURCE_DIR"]
# The ABI this mine speaks, read from the header it was built with.
with open(os.path.join(SOURCE, "include", "mine", "plugin.h")) as _h:
    ABI = int(re.search(r"#define MINE_PLUGIN_ABI_VERSION (\d+)u", _h.read()).group(1))
FIXTURES = os.path.join(os.environ["MINE_FIXTURES_DIR"], "plugins")
BUILD = os.path.dirname(os.path.abspath(MINE))
DECLARATIVE = os.path.join(SOURCE, "examples", "declarative_plugin")


def run(*args, env=None, check=True):
    return subprocess.run(list(args), capture_output=True, text=True, env=env, check=check)


def expectations(path):
    """{qualname: set of needed names} and the kernel count a fixture states."""
    needs, count = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"#\s*expect:\s*kernels\s+(\d+)", line)
            if m:
                count = int(m.group(1))
            m = re.match(r"#\s*expect:\s*kernel\s+(\S+)\s+needs\s+(.*)", line)
            if m:
                needs[m.group(1)] = {n.strip() for n in m.group(2).split(",") if n.strip()}
    return count, needs


class ExternalPlugins(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        prefix = os.path.join(cls.tmp, "prefix")
        run("cmake", "--install", BUILD, "--prefix", prefix)
        cls.plugin_dir = os.path.join(cls.tmp, "helion-build")
        run("cmake", "-S", os.path.join(SOURCE, "examples", "plugin"), "-B", cls.plugin_dir,
            f"-DCMAKE_PREFIX_PATH={prefix}")
        run("cmake", "--build", cls.plugin_dir)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def scan(self, *extra, env=None):
        db = tempfile.mktemp(suffix=".db", dir=self.tmp)
        run(MINE, "scan", FIXTURES, "--db", db, "--quiet", *extra, env=env)
        out = run(MINE, "query", "SELECT k.plugin, k.qualname, k.self_contained, "
                  "(SELECT group_concat(name, ',') FROM kernel_deps d WHERE d.kernel_id = k.id) AS deps "
                  "FROM kernels k", "--db", db, "--format", "json").stdout
        return json.loads(out)

    def check_against_fixture(self, rows, plugin, fixture):
        count, needs = expectations(os.path.join(FIXTURES, fixture))
        found = {r["qualname"]: r for r in rows if r["plugin"] == plugin}
        self.assertEqual(len(found), count, sorted(found))
        for qualname, want in needs.items():
            self.assertIn(qualname, found)
            self.assertEqual(set((found[qualname]["deps"] or "").split(",")) - {""}, want, qualname)
            self.assertTrue(found[qualname]["self_contained"])

    def test_plugins_lists_external_with_origin(self):
        out = run(MINE, "plugins", "--plugin-dir", self.plugin_dir).stdout
        self.assertRegex(out, r"helion 0\.1 \(.*helion\.so; \*\.py\)")
        self.assertRegex(out, r"triton 1 \(built-in")

    def test_out_of_tree_plugin_from_plugin_dir(self):
        self.check_against_fixture(self.scan("--plugin-dir", self.plugin_dir), "helion", "helion_kernels.py")

    def test_out_of_tree_plugin_from_env(self):
        env = dict(os.environ, MINE_PLUGIN_PATH=self.plugin_dir)
        self.assertIn("helion", run(MINE, "plugins", env=env).stdout)
        self.check_against_fixture(self.scan(env=env), "helion", "helion_kernels.py")

    def test_declarative_plugin(self):
        rows = self.scan("--plugin-dir", DECLARATIVE)
        self.check_against_fixture(rows, "cute", "cute_dsl.py")
        self.assertNotIn("helion", {r["plugin"] for r in rows})

    def test_abi_mismatch_refused_naming_both_versions(self):
        # A plugin from the future, and one built against ABI 1 (before the built-ins moved onto the ABI).
        for version in (999, 1):
            with self.subTest(abi=version):
                d = os.path.join(self.tmp, "abi%d" % version)
                os.makedirs(d, exist_ok=True)
                src = os.path.join(d, "other.c")
                with open(src, "w") as f:
                    f.write('#include <mine/plugin.h>\n'
                            'static const char* const s[] = {".py", 0};\n'
                            'static void ex(const mine_host* h, const mine_file* f, mine_sink* k, void* c) {}\n'
                            'static const mine_plugin_info info = {%d, "other", "9", "another ABI", s, s, ex};\n'
                            'MINE_PLUGIN_EXPORT const mine_plugin_info* mine_plugin_entry(uint32_t host) '
                            '{ return &info; }\n' % version)
                cc = shutil.which("cc") or shutil.which("gcc")
                run(cc, "-shared", "-fPIC", "-I", os.path.join(SOURCE, "include"), "-o", os.path.join(d, "other.so"), src)
                r = run(MINE, "plugins", "--plugin-dir", d, check=False)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn("built for mine plugin ABI %d" % version, r.stderr)
                self.assertIn("this mine speaks ABI %d" % ABI, r.stderr)
                r = run(MINE, "scan", FIXTURES, "--db", os.path.join(d, "x.db"), "--plugin-dir", d, check=False)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn("ABI %d" % version, r.stderr)

    def test_bad_declarative_manifest_says_what_is_wrong(self):
        d = os.path.join(self.tmp, "bad")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "bad.json"), "w") as f:
            json.dump({"name": "bad", "query": "bad.scm", "kernel_capture": "kernel"}, f)
        with open(os.path.join(d, "bad.scm"), "w") as f:
            f.write("(function_definition) @fn\n")
        r = run(MINE, "plugins", "--plugin-dir", d, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no capture @kernel", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
