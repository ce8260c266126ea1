"""The undisturbed-attempt theorem's breaks (`tests/retry_witnesses.py`): each
committed trace replays on the spec as an L3 break, the theorem's monitor flags it at its last
step, and a monitor that compares the receivers' bound methods instead of their values (every
other request's step then counts as disturbing) misses the break under D6 alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks.kernel.trace_file import replay_file
from spec import V3, Config, State, environment, initial, step
from spec.state import ClientItem
from spec.transitions import P0Handle, Submit
from tests import retry_monitor
from tests.committed_witness import Witness
from tests.retry_monitor import advance, disturbed, undisturbed_retry_missed
from tests.retry_witnesses import BREAKS

ROOT = Path(__file__).resolve().parents[1]


def _planted(before: State, after: State) -> bool:
    """The monitor's old comparison: `State.receivers` is a method, so `!=` compares two
    bound methods of different states, always unequal."""
    return bool(before.shadows != after.shadows
                or before.receivers != after.receivers)


@pytest.mark.parametrize("witness", BREAKS, ids=lambda w: w.name)
def test_each_break_replays_on_the_spec_and_the_monitor_flags_it(witness: Witness) -> None:
    path = ROOT / witness.path(V3)
    assert path.read_text() == witness.text(V3), (
        "regenerate: committed_witness.write_witnesses(retry_witnesses.BREAKS)")
    replayed = replay_file(path)
    assert replayed.step == len(witness.actions)  # L3 breaks at the last step
    assert undisturbed_retry_missed(replayed.trace) == len(witness.actions)
    assert all(s.action.drift_event() is None for s in replayed.trace.steps[-5:])


def test_the_bound_method_comparison_hides_the_break_under_split_updates_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the planted comparison, request 0's success reply (another request's step that
    changes no cache) disturbs request 1's window, and the D6-alone break goes unflagged."""
    alone = next(w for w in BREAKS if w.name == "split-update")
    trace = replay_file(ROOT / alone.path(V3)).trace
    monkeypatch.setattr(retry_monitor, "caches_changed", _planted)
    assert undisturbed_retry_missed(trace) is None


def test_another_requests_step_that_changes_no_cache_does_not_disturb() -> None:
    """A submit changes no cache: it disturbs no attempt (the planted comparison says it
    does)."""
    config = Config(identities=("a",), variant=V3, environment=environment())
    before = step(config, initial(config), Submit((ClientItem("a"),)))
    sent = step(config, before, P0Handle(0))
    after = step(config, sent, Submit((ClientItem("a"),)))
    assert not disturbed(Submit((ClientItem("a"),)), 0, sent, after)
    assert _planted(sent, after)
    memory, _ = advance((), before, P0Handle(0), sent)
    assert memory == ((0, False, False, True),)
