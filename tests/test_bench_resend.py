"""benchmarks/bench_resend.py runs and counts consistently (no figure is asserted): V4's
resends never miss, with nothing drifting V3 and V4 send the same wire items under the same
schedule, and every count is a count of something that happened."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_resend.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_resend", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_resend"] = module
    spec.loader.exec_module(module)
    return module


def test_v4_resends_never_miss_and_every_count_is_non_negative() -> None:
    bench = _bench()
    measured = bench.measure(6, 6, seed=1)
    assert {env for env, _ in measured.totals} == {bench.env_name(d) for d in bench.ENVIRONMENTS}
    assert sum(t.steps for t in measured.totals.values()) > 0
    v4 = [t for (_, variant), t in measured.totals.items() if variant == "V4"]
    assert sum(t.retries for t in v4) > 0  # resends happened, so "never miss" says something
    assert all(t.resend_misses == 0 for t in v4)
    for totals in measured.totals.values():
        assert totals.steps > 0 and totals.items > 0 and totals.messages > 0
        counts = [getattr(totals, f.name) for f in dataclasses.fields(totals)]
        assert all(c >= 0 for c in counts if isinstance(c, int))
        assert all(n >= 0 for n in totals.outcomes.values())
        assert totals.payloads <= totals.items and totals.resend_misses <= totals.misses
        assert totals.misses >= totals.retries  # every retry follows a miss


def test_with_nothing_drifting_v3_and_v4_send_the_same_wire_items() -> None:
    bench = _bench()
    runs = list(bench.traces(20, 6, seed=2, environments=(None,)))
    assert runs and all(t.runs["V3"].steps > 0 for t in runs)
    for trace in runs:
        v3, v4 = trace.runs["V3"], trace.runs["V4"]
        assert v3.labels == v4.labels
        assert v3.wire.sent == v4.wire.sent and v3.wire.sizes == v4.wire.sizes
        assert v3.misses == v4.misses == 0 and v4.retries == 0


def test_the_report_names_its_command_and_says_nothing_is_asserted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = _bench()
    bench.main(["--traces", "2", "--requests", "4"])
    out = capsys.readouterr().out
    assert out.startswith("command: python benchmarks/bench_resend.py --traces 2 --requests 4")
    assert "Nothing is asserted." in out and "| D11 | V4 |" in out
