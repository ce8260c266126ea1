"""benchmarks/bench_serve.py runs (no figure is asserted): both pairs serve every workload
and the script prints one row per workload and request size."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_round_trip_benchmark_runs() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_serve.py"),
                           "--requests", "3", "--rounds", "1"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=True)
    rows = [line for line in done.stdout.splitlines() if line.startswith(("| hit", "| miss"))]
    assert len(rows) == 4 and all(line.endswith("x |") for line in rows)
