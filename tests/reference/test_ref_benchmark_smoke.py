"""The benchmark script still runs (tiny sizes; no timing is asserted, none is meaningful).

The subprocess has a hang guard, not a time limit: on a busy machine a merely slow script
must not fail the test. `HANG_SECONDS` only stops a script that never ends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_reference.py"
HANG_SECONDS = 1800


def test_benchmark_script_runs() -> None:
    pytest.importorskip("cachetools")
    result = subprocess.run(
        [sys.executable, "-W", "ignore", str(SCRIPT), "--items", "16", "--repeats", "1"],
        capture_output=True, text=True, timeout=HANG_SECONDS, check=True,
    )
    assert "command: python benchmarks/bench_reference.py --items 16 --repeats 1" in result.stdout
    assert "| memory per entry | bytes |" in result.stdout
    assert "| target | this run | met |" in result.stdout
