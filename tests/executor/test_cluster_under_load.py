"""The cluster tests decide by the cluster's events, not by how busy the machine is: the
distributed tests (a worker killed mid-search, mid-sweep, a search left without workers) pass
with CPU hogs beside them, two per core, as on a machine running other work.

Slow (the distributed tests once more, on a starved machine):
`python -m pytest -m slow tests/executor/test_cluster_under_load.py`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
HOG = "while True: pass"
TESTS = ["tests/executor/test_explore_distributed.py", "tests/executor/test_executor_cluster.py"]


def test_the_distributed_tests_pass_beside_a_cpu_hog() -> None:
    pytest.importorskip("distributed")
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider",
             "-k", "killed or without_workers or left", *TESTS],
            cwd=ROOT, capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
