"""benchmarks/bench_wire.py runs and counts consistently (no figure is asserted): with
nothing drifting, V2 and V3 follow one schedule without diverging or missing, and the payload
difference is exactly the items each sends as a payload where the other sends a reference."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_wire.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_wire", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_wire"] = module
    spec.loader.exec_module(module)
    return module


def test_counts_are_consistent() -> None:
    bench = _bench()
    totals, _ = bench.measure(60, 6, seed=3)
    assert totals.traces == 60 and totals.items > 0
    assert totals.diverged == 0 and totals.misses == 0
    assert totals.payloads_v3 - totals.payloads_v2 == totals.v3_only - totals.v2_only
    assert totals.bytes_v3 - totals.bytes_v2 == totals.v3_only_bytes - totals.v2_only_bytes


def test_the_report_names_its_command_and_prints_the_example_in_the_notation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = _bench()
    bench.main(["--traces", "300", "--requests", "5"])
    out = capsys.readouterr().out
    assert out.startswith("command: python benchmarks/bench_wire.py --traces 300 --requests 5")
    assert "V3 payload where V2 sent a reference:" in out
    if "shortest trace where they differ" in out:
        assert "| # |" not in out and "processings: p0=" in out
