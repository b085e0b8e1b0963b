"""User SQL can only read: `mine query` and the `--where` conditions of `mine check` and
`mine export` refuse writes, schema changes, PRAGMA writes, ATTACH, VACUUM INTO, extension
loading (a real shared library whose constructor would leave a file) and extra statements, and
after every attempt the corpus dumps exactly as before and no file was created."""
import hashlib
import os
import sqlite3
import subprocess
import tempfile
import unittest

MINE = os.environ["MINE"]
FIXTURES = os.environ["MINE_FIXTURES_DIR"]


def mine(*args):
    return subprocess.run([MINE, *args], capture_output=True, text=True, timeout=120)


class ReadOnlySql(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mine-sql-")
        t = cls.tmp.name
        cls.db = os.path.join(t, "corpus.db")
        assert mine("scan", os.path.join(FIXTURES, "triton"), "--db", cls.db, "--quiet").returncode == 0
        assert mine("dedup", "--db", cls.db).returncode == 0
        cls.evil = os.path.join(t, "evil.db")
        cls.copy = os.path.join(t, "copy.db")
        cls.marker = os.path.join(t, "extension-loaded")
        # A real SQLite extension whose constructor leaves a file: if it ever loads, we know.
        src = os.path.join(t, "evil.c")
        with open(src, "w") as f:
            f.write('#include <stdio.h>\n__attribute__((constructor)) static void hit(void) {\n'
                    '  FILE* f = fopen("%s", "w"); if (f) fclose(f);\n}\n'
                    'int sqlite3_extension_init(void* a, void* b, void* c) { return 0; }\n' % cls.marker)
        cls.lib = os.path.join(t, "libevil.so")
        cls.have_lib = subprocess.run(["cc", "-shared", "-fPIC", "-o", cls.lib, src]).returncode == 0
        cls.before = cls.fingerprint()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def fingerprint(cls):
        c = sqlite3.connect("file:%s?mode=ro" % cls.db, uri=True)
        try:
            h = hashlib.sha256()
            for line in c.iterdump():
                h.update(line.encode())
            return h.hexdigest(), c.execute("PRAGMA user_version").fetchone()[0]
        finally:
            c.close()

    def assert_unchanged(self, what):
        self.assertEqual(self.fingerprint(), self.before, "the corpus changed after " + what)
        for p in (self.evil, self.copy, self.marker):
            self.assertFalse(os.path.exists(p), "%s created by %s" % (p, what))

    def test_query_refuses_everything_but_reading(self):
        lib = self.lib
        refused = [
            "DELETE FROM kernels", "UPDATE kernels SET name = 'x'", "INSERT INTO repos(name) VALUES ('x')",
            "REPLACE INTO repos(id, name) VALUES (1, 'x')", "DROP TABLE kernels", "CREATE TABLE x(a)",
            "CREATE TEMP TABLE x(a)", "CREATE VIEW v AS SELECT 1", "ALTER TABLE kernels ADD COLUMN z",
            "CREATE INDEX i ON kernels(name)", "WITH x AS (SELECT 1) DELETE FROM kernels",
            "INSERT INTO repos(name) SELECT name || 'x' FROM repos RETURNING id",
            "ATTACH DATABASE '%s' AS evil" % self.evil, "ATTACH '%s' AS evil" % self.evil,
            "DETACH DATABASE main", "SELECT load_extension('%s')" % lib,
            "SELECT load_extension('%s', 'sqlite3_extension_init')" % lib,
            "PRAGMA user_version = 0", "PRAGMA journal_mode = DELETE", "PRAGMA writable_schema = ON",
            "PRAGMA query_only = OFF", "PRAGMA foreign_keys = OFF", "PRAGMA user_version",
            "VACUUM", "VACUUM INTO '%s'" % self.copy, "REINDEX", "ANALYZE",
            "BEGIN", "BEGIN; DELETE FROM kernels; COMMIT", "SAVEPOINT a",
            "SELECT 1; DROP TABLE kernels", "SELECT count(*) FROM kernels; ATTACH '%s' AS e" % self.evil,
            "SELECT 1 /* ; */ ; DELETE FROM kernels --", "SELECT writefile('%s', 'x')" % self.copy,
            "SELECT readfile('/etc/passwd')", "SELECT edit('x')",
        ]
        for sql in refused:
            with self.subTest(sql=sql):
                r = mine("query", sql, "--db", self.db)
                self.assertEqual(r.returncode, 1, r.stdout)
                self.assertRegex(r.stderr, r"read-only|one SQL statement|no such function|not authorized|refused",
                                 r.stderr)
                self.assert_unchanged(sql)
        ok = mine("query", "SELECT count(*) AS n FROM kernels", "--db", self.db, "--format", "csv")
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertGreater(int(ok.stdout.split()[1]), 5)

    def test_where_conditions_only_read(self):
        t = self.tmp.name
        attempts = [
            "1); DROP TABLE kernels; --", "1); DELETE FROM kernels; SELECT (1", "1) ; UPDATE kernels SET name='x' WHERE (1",
            "1); ATTACH DATABASE '%s' AS evil; --" % self.evil, "1); PRAGMA user_version=0; --",
            "1); VACUUM INTO '%s'; --" % self.copy, "load_extension('%s') IS NULL" % self.lib,
            "1 = 1) UNION SELECT * FROM kernels; DROP TABLE kernels; --", "1); CREATE TABLE pwn(a); --",
            "(SELECT count(*) FROM pragma_user_version) AND load_extension('%s')" % self.lib,
        ]
        for i, where in enumerate(attempts):
            for cmd in ("export", "check"):
                with self.subTest(command=cmd, where=where):
                    if cmd == "export":
                        out = os.path.join(t, "x%d.jsonl" % i)
                        r = mine("export", "--db", self.db, "--out", out, "--format", "jsonl", "--where", where)
                    else:
                        out = os.path.join(t, "bundle%d" % i)
                        r = mine("check", "--db", self.db, "--emit", out, "--where", where)
                    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                    self.assertIn("--where", r.stderr)
                    self.assertFalse(os.path.exists(out) and os.listdir(out) if os.path.isdir(out)
                                     else os.path.exists(out), out)
                    self.assert_unchanged("%s --where %r" % (cmd, where))
        # Conditions that only read still work.
        r = mine("export", "--db", self.db, "--out", os.path.join(t, "ok.jsonl"), "--format", "jsonl",
                 "--dedup", "none", "--where", "k.id IN (SELECT kernel_id FROM kernel_dedup) AND k.name LIKE '%kernel%'")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_unchanged("a reading condition")
        # (check --emit stores the signatures it infers: that write is its own, not the condition's.)
        r = mine("check", "--db", self.db, "--emit", os.path.join(t, "okbundle"), "--where", "name LIKE '%kernel%'")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(t, "okbundle", "bundle.json")))
        self.__class__.before = self.fingerprint()

    def test_the_extension_library_is_real(self):
        # Without this the load_extension cases above could pass for a broken library.
        if not self.have_lib:
            self.skipTest("no C compiler to build the test extension")
        probe = os.path.join(self.tmp.name, "probe.db")
        c = sqlite3.connect(probe)
        if hasattr(c, "enable_load_extension"):
            c.enable_load_extension(True)
            c.load_extension(self.lib)
        else:  # a Python built without extension loading: the sqlite3 shell can
            subprocess.run(["sqlite3", probe, ".load " + self.lib], capture_output=True)
        c.close()
        self.assertTrue(os.path.exists(self.marker))
        os.remove(self.marker)


if __name__ == "__main__":
    unittest.main(verbosity=2)
