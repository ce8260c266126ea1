"""V4's one mechanism earns its place: resends that bypass the shadow.

For each liveness property and drift source V4 is built to keep (L1 under D2 and D6, L3
under D2, D3, D4 and D10), V3's committed shortest witness is replayed, schedule for
schedule, on two variants: V4 without the mechanism (its one knob off, which is V3's knobs
under another name) breaks the property exactly as V3 does; V4 runs the same schedule up to
and past the resend and keeps it, because its resend carries every item as a payload.

The L3 witnesses also show why the resend must carry *every* item, not only the missed
ones: there the resend already carries the missed identity's data (V3 sends it as a payload,
P0 having dropped it), and misses another item of the request, one that did not miss before.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from model_checks.kernel import result_files
from model_checks.kernel.trace_file import actions_of, config_of
from spec import V4, Config, State, Trace, by_id, initial, step
from spec.trace import Step, run
from spec.transitions import InvalidAction, Retry

WITNESSES = Path(__file__).resolve().parents[2] / "docs" / "results" / "lattice"

KEPT = (("L1", "D2"), ("L1", "D6"), ("L3", "D2"), ("L3", "D3"), ("L3", "D4"), ("L3", "D10"))
"""(property, drift source) pairs V4 keeps and V3 breaks."""

WITHOUT_BYPASS = replace(V4, name="V4-resends-use-shadow", resends_bypass_shadow=False)


def _schedule(prop: str, source: str) -> tuple[Config, list[Any]]:
    data = result_files.read(WITNESSES / f"V3_{source}_{prop}.json.gz")
    actions = actions_of(data)
    return config_of(data), actions


def _run_while_enabled(config: Config, actions: list[Any]) -> Trace:
    """The schedule's longest enabled prefix (V4's resend changes what later steps see)."""
    state: State = initial(config)
    first, steps = state, []
    for action in actions:
        try:
            state = step(config, state, action)
        except InvalidAction:
            break
        steps.append(Step(action, state))
    return Trace(config, first, tuple(steps))


@pytest.mark.parametrize(("prop", "source"), KEPT, ids=lambda v: str(v))
def test_without_the_bypass_the_witness_breaks(prop: str, source: str) -> None:
    config, actions = _schedule(prop, source)
    trace = run(replace(config, variant=WITHOUT_BYPASS), actions)
    violation = by_id(prop).check_trace(trace)
    assert violation is not None, f"{prop} under {source} kept without the bypass"
    resent = [s for s in trace.steps if isinstance(s.action, Retry)]
    assert resent, "the witness has no resend: nothing about resends is shown"


@pytest.mark.parametrize(("prop", "source"), KEPT, ids=lambda v: str(v))
def test_with_the_bypass_the_same_schedule_keeps_it(prop: str, source: str) -> None:
    config, actions = _schedule(prop, source)
    trace = _run_while_enabled(replace(config, variant=V4), actions)
    retries = [n for n, s in enumerate(trace.steps) if isinstance(s.action, Retry)]
    assert retries and retries[0] + 1 < len(trace.steps), "the run never reached the resend"
    assert by_id(prop).check_trace(trace) is None


def test_a_missed_only_resend_is_not_enough() -> None:
    """In V3's L3 witness under D3 the resend carries the identity that missed as data, and
    misses on another item of the same request: resending the missed identities alone does
    not keep L3."""
    config, actions = _schedule("L3", "D3")
    trace = run(config, actions)
    delivery = trace.final.last_delivery
    assert delivery is not None and delivery.missed
    first_miss = next(s.state.last_delivery for s in trace.steps
                      if s.state.last_delivery is not None and s.state.last_delivery.missed)
    assert first_miss is not None
    assert delivery.message.rid == first_miss.message.rid
    resent = {i.identity for i in delivery.message.items if i.data is not None}
    assert set(first_miss.missed) <= resent
    assert not set(delivery.missed) & set(first_miss.missed)
