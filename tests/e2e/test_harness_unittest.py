"""CTest entry for the check harness's Python tests (tests/harness): they need no Triton,
torch or GPU; those that do skip with a message."""
import os
import subprocess
import sys

root = os.environ.get("MINE_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
sys.exit(subprocess.call([sys.executable, "-m", "unittest", "discover", "-s",
                          os.path.join("tests", "harness"), "-v"], cwd=root))
