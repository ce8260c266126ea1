"""Hypothesis's verdict records are a function of the profile and the cell, never of the clock.

The profiles bound shrinking by a count (`SimulateProfile.max_shrinks`, `run.shrink_bound`). These
tests run one small cell with fake clocks in Hypothesis's engine: one that never moves (no
time limit is ever reached) and one that jumps a minute per reading (any time limit is
reached at once). The records must be the same under both, except `seconds`; the known-bad
variant, shrinking bounded by one second as well as by the count, gives different records
under the two clocks, so the comparison catches a clock-bounded shrink. A last test runs the
cell in two processes with different hash seeds.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis.internal.conjecture import engine

from model_checks.kernel.instance import config_for
from model_checks.kernel.matrix import Expectation
from model_checks.simulate import run
from model_checks.simulate.run import PROFILES, SimulatedCell, run_cell
from spec import variant_named

SMALL = replace(PROFILES["ci"], name="test", holds_examples=10, break_examples=60,
                max_shrinks=5, jobs=1)
CELL = ("V2", ("D8",), {"S2": Expectation.HOLDS, "S3": Expectation.BREAKS})
"""S3 breaks in V2 under D8 within a few examples, and shrinking shortens it."""


class _Clock:
    """Stands for the `time` module in Hypothesis's engine: each reading adds `tick`."""

    def __init__(self, tick: float) -> None:
        self.now = 0.0
        self.tick = tick

    def perf_counter(self) -> float:
        self.now += self.tick
        return self.now

    monotonic = perf_counter


def records(clock: _Clock | None = None) -> list[dict[str, Any]]:
    """The cell's verdict records without `seconds`, read under `clock` (None: the real one)."""
    variant, env, expectations = CELL
    with contextlib.ExitStack() as stack:
        if clock is not None:
            patch = stack.enter_context(pytest.MonkeyPatch.context())
            patch.setattr(engine, "time", clock)
        simulated = SimulatedCell("V2_D8", variant, env, config_for(variant_named(variant), env),
                                  expectations)
        cell = run_cell(simulated, SMALL, None)
    assert not cell.mismatches, cell.mismatches
    return [{k: v for k, v in r.to_json().items() if k != "seconds"} for r in cell.records]


@contextlib.contextmanager
def _count_and_one_second(max_shrinks: int) -> Iterator[None]:
    """The known-bad variant: shrinking bounded by the count and by one second of the clock."""
    saved = engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS
    engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS = max_shrinks, 1
    try:
        yield
    finally:
        engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS = saved


def test_the_records_do_not_depend_on_the_clock() -> None:
    still, racing = records(_Clock(0.0)), records(_Clock(60.0))
    assert still == racing
    broken = next(r for r in still if r["property"] == "S3")
    assert broken["verdict"] == "counterexample" and broken["counterexample_length"]


def test_a_clock_bounded_shrink_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run, "shrink_bound", _count_and_one_second)
    still, racing = records(_Clock(0.0)), records(_Clock(60.0))
    assert still != racing
    broken = [next(r for r in found if r["property"] == "S3") for found in (still, racing)]
    assert broken[0]["verdict"] == broken[1]["verdict"]  # the same verdict, shrunk less
    assert broken[0]["bound"] != broken[1]["bound"]


def test_the_shrink_bound_is_restored_and_zero_means_no_shrinking() -> None:
    saved = engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS
    with run.shrink_bound(0):
        assert engine.MAX_SHRINKS == 0
        assert engine.MAX_SHRINKING_SECONDS == run.NO_CLOCK
    assert saved == (engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS)
    assert all(p.max_shrinks > 0 for p in PROFILES.values())


def test_two_processes_with_different_hash_seeds_write_the_same_records() -> None:
    program = ("import json, sys; sys.path.insert(0, sys.argv[1]); "
               "import test_sim_determinism as t; print(json.dumps(t.records()))")
    outputs = []
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", program, str(Path(__file__).parent)],
            env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, text=True,
            check=True,
        )
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
