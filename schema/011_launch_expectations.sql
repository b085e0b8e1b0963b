-- Launches the repository makes only to see them fail: a launch inside `with pytest.raises(...)`
-- or `self.assertRaises(...)` (a test that a bad launch is refused) has expects_error 1.
-- `mine check` reads its facts from another launch when the kernel has one.
ALTER TABLE kernel_launches ADD COLUMN expects_error INTEGER NOT NULL DEFAULT 0;
