"""An explicit witness joins a design's lattice only when its replay on the spec breaks its
property at its last step (`lattice.explicit_breaks`): the declared ones of every design do,
with the reasons their replays give; a planted one that breaks nothing (a last state that
holds, a step not enabled, a property the design lacks) fails the lattice before it searches,
with one line naming the witness, exit 1 and nothing written, and fails `explore --lattice
--check` too."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.designs import command, evidence
from model_checks.designs.evidence import EXPLICIT
from model_checks.designs.lattice import (
    Explicit,
    ExplicitDoesNotReplay,
    LatticeOptions,
    explicit_breaks,
    search,
)
from model_checks.explore import lattice as one_search
from model_checks.explore.exploration import replay
from spec.designs import design_named

SHM = design_named("shm")


def _declared(environment: str, property_id: str) -> Explicit:
    return next(e for e in EXPLICIT["shm"]()
                if e.environment == {environment} and e.property_id == property_id)


def _holds() -> Explicit:
    """The C1 witness of S3 without its last step: its last state breaks nothing."""
    witness = _declared("C1", "S3")
    planted = dataclasses.replace(witness, actions=witness.actions[:-1])
    prop = next(p for p in SHM.properties if p.id == "S3")
    assert not replay(SHM, planted.config, planted.actions, prop)
    return planted


def _plant(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shm design's explicit witnesses and, last, the planted one that breaks nothing."""
    planted = [*EXPLICIT["shm"](), _holds()]
    monkeypatch.setitem(evidence.EXPLICIT, "shm", lambda: planted)


HOLDS_LINE = ("explicit witness of S3 under C1 (3 identities, 5 requests (explicit witness), "
              "16 steps) does not replay: its last state does not break S3")


@pytest.mark.parametrize("name", sorted(EXPLICIT))
def test_every_declared_explicit_witness_joins_with_its_replays_reasons(name: str) -> None:
    design = design_named(name)
    declared = EXPLICIT[name]()
    breaks = explicit_breaks(design, declared)
    assert [(b.environment, b.property_id, b.actions) for b in breaks] == [
        (e.environment, e.property_id, e.actions) for e in declared]
    for found, witness in zip(breaks, declared, strict=True):
        prop = next(p for p in design.properties if p.id == witness.property_id)
        assert found.reason == "; ".join(replay(design, witness.config, witness.actions, prop))
        assert found.reason


def test_a_witness_whose_last_state_holds_fails_the_search_before_it_searches(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def no_search(*args: object) -> None:
        raise AssertionError("the lattice searched")

    monkeypatch.setattr(one_search, "search", no_search)
    with pytest.raises(ExplicitDoesNotReplay) as raised:
        search(SHM, "O1", LatticeOptions(max_states=10, explicit=(
            *EXPLICIT["shm"](), _holds())))
    assert raised.value.line() == HOLDS_LINE


def test_a_witness_with_a_step_not_enabled_or_an_unknown_property_does_not_replay() -> None:
    witness = _declared("R1", "S3")
    disabled = dataclasses.replace(witness, actions=witness.actions[2:])
    with pytest.raises(ExplicitDoesNotReplay, match=r"^explicit witness of S3 under R1 .* "
                       r"does not replay: .* is not enabled in this state$"):
        explicit_breaks(SHM, [disabled])
    unknown = dataclasses.replace(witness, property_id="S9")
    with pytest.raises(ExplicitDoesNotReplay, match=r"does not replay: shm has no property S9$"):
        explicit_breaks(SHM, [unknown])


def test_the_lattice_command_fails_in_one_line_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`explore --lattice --design shm` (its all-instance proofs left out here) with a planted
    witness: exit 1, one line, no --json file, no --out folder."""
    _plant(monkeypatch)
    monkeypatch.setitem(evidence.PROOFS, "shm", dict)
    monkeypatch.setitem(evidence.RESTRICTED, "shm", list)
    out, written = tmp_path / "out", tmp_path / "shm.json"
    assert main(["explore", "--lattice", "--design", "shm", "--json", str(written),
                 "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [f"! shm: {HOLDS_LINE}"]
    assert not list(tmp_path.iterdir())


def test_the_lattice_check_fails_on_a_witness_that_does_not_replay(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`explore --lattice --check` (its searches left out here) replays the declared
    witnesses: the planted one is named on one line, exit 1."""
    _plant(monkeypatch)
    monkeypatch.setattr(command, "_check_one", lambda design, max_states: 0)
    assert main(["explore", "--lattice", "--check", "--design", "shm"]) == 1
    out = capsys.readouterr().out
    assert f"! shm: {HOLDS_LINE}" in out.splitlines()
    assert "; 1 explicit witness(es) do not replay" in out


def test_the_lattice_check_replays_the_declared_witnesses(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(command, "_check_one", lambda design, max_states: 0)
    assert main(["explore", "--lattice", "--check", "--design", "lru+encoder"]) == 0
    out = capsys.readouterr().out
    assert f"  lru+encoder explicit witnesses: {len(EXPLICIT['lru+encoder']())} replayed" \
        in out.splitlines()
    assert "; 0 explicit witness(es) do not replay" in out
