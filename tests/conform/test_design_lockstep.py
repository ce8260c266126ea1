"""The one lockstep driver (`model_checks.conform.design_lockstep`) over a design it was not written
for: the encoder cache, with a binding declared here whose implementation is the design's own
spec (`SpecSide`). It conforms; a planted side that ignores one action class disagrees at the
first step taking it; a step the side cannot drive stops the run; and `conform --design
encoder` runs it once the binding is in the table (`lockstep_bindings.BINDINGS`), and a run
that took no step is never a pass. The one loop that follows a script (`follow`) groups it as
the run's steps take it, skips what the run skips and stops at the first disagreement."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from model_checks.cli import main
from model_checks.conform.design_lockstep import Binding, NotDriven, follow, replay, walk
from model_checks.designs import lockstep_bindings
from spec.designs.registry import design_named

ENCODER = design_named("encoder")


class SpecSide:
    """The design's spec as an implementation: its state is its view; the action classes
    named in `ignored` leave it unchanged (a planted bug), and those in `refused` cannot be
    driven."""

    def __init__(self, config: Any, ignored: frozenset[str], refused: frozenset[str]) -> None:
        self.config, self.ignored, self.refused = config, ignored, refused
        self.state = ENCODER.initial(config)

    def drive(self, action: Any, before: Any, after: Any) -> object:
        kind = type(action).__name__
        if kind in self.refused:
            raise NotDriven(f"no {kind} on this side")
        if kind not in self.ignored:
            self.state = ENCODER.step(self.config, self.state, action)
        return self.state

    def broken(self, prop_id: str) -> list[str]:
        prop = next(p for p in ENCODER.properties if p.id == prop_id)
        return prop.check(self.config, self.state)

    def close(self) -> None:
        pass


class SpecAdapter:
    def __init__(self, ignored: frozenset[str] = frozenset(),
                 refused: frozenset[str] = frozenset()) -> None:
        self.ignored, self.refused = ignored, refused
        self.name = "the encoder design's spec" + (f" ignoring {sorted(ignored)}" if ignored
                                                   else "")

    def byte_map(self, config: Any) -> list[str]:
        return ["byte map: the model's own units"]

    def start(self, config: Any) -> SpecSide:
        return SpecSide(config, self.ignored, self.refused)


def _start(adapter: SpecAdapter, config: Any) -> SpecSide:
    return adapter.start(config)


BINDING = Binding(ENCODER, f"{__name__}.SpecAdapter", _start,
                  lambda config, action, after: after,
                  lambda spec, impl: ["  state differs:", f"    spec:           {spec}",
                                      f"    implementation: {impl}"])


def factory() -> SpecAdapter:
    return SpecAdapter()


def ignores_completion() -> SpecAdapter:
    return SpecAdapter(ignored=frozenset({"Complete"}))


def _config() -> Any:
    return ENCODER.instance(ENCODER.variants[0], frozenset())


def test_the_spec_as_its_own_implementation_agrees_for_every_step() -> None:
    outcome = walk(BINDING, factory(), _config(), 200, "seed")
    assert (outcome.steps, outcome.disagreement, outcome.not_driven) == (200, None, None)


def test_a_side_ignoring_an_action_class_disagrees_at_the_first_step_taking_it() -> None:
    outcome = walk(BINDING, ignores_completion(), _config(), 200, "seed")
    found = outcome.disagreement
    assert found is not None and type(found.action).__name__ == "Complete"
    assert found.step == outcome.steps and outcome.actions[-1] == found.action
    assert found.report().splitlines()[:2] == [
        f"step {found.step}: {json.dumps(ENCODER.action_to_json(found.action))}",
        "  state differs:"]


def test_a_step_the_side_cannot_drive_stops_the_replay_there() -> None:
    config = _config()
    actions = walk(BINDING, ignores_completion(), config, 200, "seed").actions
    outcome = replay(BINDING, SpecAdapter(refused=frozenset({"Complete"})), config, actions)
    assert outcome.disagreement is None and outcome.not_driven is not None
    assert outcome.not_driven == f"step {len(actions)}: no Complete on this side"


def test_conform_runs_the_design_once_its_binding_is_in_the_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    command = ["conform", "--design", "encoder", "--environment", "none", "--steps", "60"]
    assert main([*command, "--adapter", f"{__name__}:factory"]) == 2
    assert "conform has no lockstep for it (it has one for lru, shm)" in capsys.readouterr().err
    monkeypatch.setitem(lockstep_bindings.BINDINGS, "encoder", lambda: BINDING)
    assert main([*command, "--adapter", f"{__name__}:factory"]) == 0
    out = capsys.readouterr().out
    assert "environment none: 60 lockstep steps, every step agreed" in out
    assert main([*command, "--adapter", f"{__name__}:ignores_completion"]) == 1
    assert "RESULT: DISAGREEMENT with design encoder's spec in environment none" in (
        capsys.readouterr().out)


class Idle:
    """The encoder design with nothing enabled (a planted instance no run can step)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(ENCODER, name)

    def enabled(self, config: Any, state: Any) -> tuple[Any, ...]:
        return ()


def test_a_run_of_no_step_is_nothing_checked(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    idle = Binding(Idle(), BINDING.interface, _start, BINDING.spec_view, BINDING.differences)
    monkeypatch.setitem(lockstep_bindings.BINDINGS, "encoder", lambda: idle)
    assert main(["conform", "--design", "encoder", "--environment", "none", "--adapter",
                 f"{__name__}:factory"]) == 1
    out = capsys.readouterr().out
    assert "environment none: 0 lockstep steps" in out
    assert out.rstrip().splitlines()[-1] == "RESULT: NOTHING CHECKED (exit 1)"


class Grouping:
    """A planted run: "pair" takes itself and the next action in one step, "skip" is
    skipped, "bad" disagrees; every step taken is recorded."""

    def __init__(self) -> None:
        self.taken: list[tuple[str, ...]] = []

    def width(self, script: Sequence[str], index: int) -> int:
        return {"pair": 2, "skip": 0}.get(script[index], 1)

    def take(self, actions: Sequence[str]) -> str | None:
        self.taken.append(tuple(actions))
        return "disagrees" if actions[0] == "bad" else None


def test_follow_takes_a_script_as_the_run_groups_it_and_stops_at_a_disagreement() -> None:
    run = Grouping()
    assert follow(run, ["a", "pair", "b", "skip", "c"]) == (5, None)
    assert run.taken == [("a",), ("pair", "b"), ("c",)]
    run = Grouping()
    assert follow(run, ["a", "bad", "c"]) == (2, "disagrees")
    assert run.taken == [("a",), ("bad",)]
