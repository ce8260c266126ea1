"""The design lattice: minimal breaking sets, holds settled only by complete searches, a
break standing under a larger environment only where its witness replays there, the
committed answers and witnesses of the shm design replaying on the spec."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from model_checks.designs.command import committed_answers
from model_checks.designs.evidence import EXPLICIT
from model_checks.designs.lattice import (
    DesignLattice,
    DesignRung,
    LatticeOptions,
    LatticeResult,
    explicit_breaks,
    search,
)
from model_checks.designs.results import to_json, write_witnesses
from model_checks.designs.witness_files import read
from model_checks.explore.exploration import replay
from model_checks.explore.lattice import (
    ANY_RUNG,
    BREAKS,
    HOLDS,
    UNDECIDED,
    EnvOutcome,
    EnvTask,
    EverySize,
    Knowledge,
    LatticeContradiction,
    LatticeRequest,
    Proof,
    largest_avoiding,
    seeded,
)
from model_checks.kernel import result_files
from spec.designs import design_named
from spec.drift import Environment

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "results" / "designs"
SHM = design_named("shm")


@pytest.fixture(scope="module")
def small() -> LatticeResult:
    """The shm lattice at rung 0 with a small state limit (its large searches are cut)."""
    return search(SHM, "O1", LatticeOptions(max_states=4_000, explicit=tuple(EXPLICIT["shm"]())))


def test_largest_environments_avoiding_the_breaks() -> None:
    got = largest_avoiding(("A", "B", "C"), [frozenset({"A"}), frozenset({"B", "C"})])
    assert sorted(map(sorted, got)) == [["B"], ["C"]]
    assert largest_avoiding(("A", "B"), []) == [frozenset({"A", "B"})]


def test_a_proof_a_search_breaks_fails_the_lattice() -> None:
    """Planted: a proof of U1 under every source, which D2's search breaks: the one lattice
    search refuses it (`LatticeContradiction`) instead of answering from it."""
    with pytest.raises(LatticeContradiction, match="U1"):
        search(SHM, "O1", LatticeOptions(max_states=4_000, proofs={"U1": "planted"}))


@pytest.mark.parametrize("name", ["shm", "encoder", "lru+encoder"])
def test_the_plan_by_sizes_asks_for_the_committed_searches(name: str) -> None:
    """The plan (`EverySize`), each search it asks for answered by the committed answers'
    exploration of it, asks for exactly the committed explorations, each once; planted: the
    plan without its second batch (the largest environments avoiding the breaks) misses
    some."""
    committed = result_files.read(committed_answers(name))
    design = design_named(name)
    explicit = explicit_breaks(design, EXPLICIT[name]() if name in EXPLICIT else [])
    plan = EverySize(tuple(committed["sizes"]),
                     tuple((b.property_id, b.environment) for b in explicit))
    assert _asked(name, committed, plan) == _committed(committed)
    first_only = itertools.islice(plan(*_fed(name, committed)), 1)
    assert {key for batch in first_only for key in _keys(batch)} < _committed(committed)


def _committed(committed: dict[str, Any]) -> set[tuple[int, str]]:
    return {(x["rung"], x["environment"]) for x in committed["explorations"]}


def _keys(batch: list[EnvTask[DesignRung]]) -> list[tuple[int, str]]:
    return [(t.first, Environment.of(t.environment).text) for t in batch]


def _fed(name: str, committed: dict[str, Any]
         ) -> tuple[LatticeRequest[DesignRung], dict[str, Knowledge]]:
    """The request of `name`'s lattice and its knowledge, seeded with its proofs."""
    design = design_named(name)
    sources = tuple(s.id for s in design.sources)
    variant = committed["variant"]
    proofs = [Proof(variant, p, sources, "", "") for p in committed["proofs"]]
    proofs += [Proof(variant, r["property"], tuple(r["environment"].split("+")), "", "")
               for r in committed["restricted"]]
    request = LatticeRequest((variant,), sources, 1, tuple(map(DesignRung, design.rungs)),
                             DesignLattice(name, EverySize(())), proofs=tuple(proofs))
    known = seeded(request.design, sources, variant)
    for proof in proofs:
        known.holds.setdefault(proof.property, {})[frozenset(proof.environment)] = ANY_RUNG
    return request, {variant: known}


def _asked(name: str, committed: dict[str, Any], plan: EverySize) -> set[tuple[int, str]]:
    """Every search `plan` asks for, each learnt from its committed exploration."""
    request, known = _fed(name, committed)
    found = {(x["rung"], x["environment"]): x for x in committed["explorations"]}
    asked: list[tuple[int, str]] = []
    for batch in plan(request, known):
        for task, key in zip(batch, _keys(batch), strict=True):
            asked.append(key)
            x = found[key]
            verdicts = {p: BREAKS if x["verdicts"].get(p) == "breaks" else
                        HOLDS if x["complete"] and x["states"] else UNDECIDED
                        for p in request.design.property_ids()}
            known[task.variant].learn(EnvOutcome(
                task.variant, task.environment, x["states"], x["depth"], x["complete"], 0.0,
                verdicts, {}, dict.fromkeys(verdicts, task.first), {}, first=task.first))
    assert len(asked) == len(set(asked))
    return set(asked)


def test_a_small_lattice_finds_the_single_source_breaks_and_nothing_else(
    small: LatticeResult,
) -> None:
    result = small
    minimal = {p: [Environment.of(b.environment).text for b in v]
               for p, v in result.minimal.items()}
    assert minimal["U1"] == ["D2"] and minimal["S4"] == ["C1", "D3", "D7", "R1"]
    assert minimal["S3"] == minimal["S1"] == ["C1", "D3", "R1"] and minimal["S2"] == []
    assert result.answer(frozenset({"D2", "D7"}), "U1").verdict == "breaks"
    # no proof given and the large searches cut by the state limit: S2 is not "holds" under
    # every source
    assert result.answer(frozenset(s.id for s in SHM.sources), "S2").verdict == "unknown"
    assert result.answer(frozenset(), "S1").verdict == "holds"


def test_a_break_stands_only_where_its_witness_replays(small: LatticeResult) -> None:
    result = small
    found = result.minimal["U1"][0]
    assert result.replays(found, frozenset({"D2", "D8"}))
    shortened = dataclasses.replace(found, actions=found.actions[:1])
    assert not result.replays(shortened, frozenset({"D2"}))


def test_explicit_witnesses_replay_on_the_spec_and_join_the_breaks(
    small: LatticeResult,
) -> None:
    for witness in EXPLICIT["shm"]():
        prop = next(p for p in SHM.properties if p.id == witness.property_id)
        assert replay(SHM, witness.config, witness.actions, prop)
    result = small
    assert "C1" in [Environment.of(b.environment).text for b in result.minimal["S3"]]
    assert result.answer(frozenset({"C1"}), "S3").basis.endswith("(explicit witness)")


def test_witness_files_round_trip(small: LatticeResult, tmp_path: Path) -> None:
    result = small
    paths = write_witnesses(result, tmp_path)
    assert {p.name for p in paths} >= {"D2_U1.json", "D7_S4.json", "D3_S3.json"}
    witness = read(tmp_path / "D2_U1.json")
    assert witness.config() == SHM.instance(witness.variant, witness.environment)
    assert replay(SHM, witness.config(), witness.actions,
                  next(p for p in SHM.properties if p.id == "U1"))
    assert to_json(result)["answers"]["U1"]["D2"]["verdict"] == "breaks"


def test_every_committed_shm_witness_replays_on_the_spec() -> None:
    folder = COMMITTED / "shm" / "witnesses"
    files = sorted(folder.glob("*.json"))
    assert files
    for path in files:
        witness = read(path)
        prop = next(p for p in SHM.properties if p.id == witness.property_id)
        assert replay(SHM, witness.config(), witness.actions, prop), path.name


def test_the_committed_shm_answers_decide_every_environment_of_s1_to_s3_h1_and_u1() -> None:
    committed = json.loads(result_files.read_text(committed_answers("shm")))
    assert len(committed["answers"]["S1"]) == 2 ** len(committed["sources"]) == 256
    assert set(committed["proofs"]) == {"S2"}  # S1 of the split read: restricted, and breaks
    assert {r["property"] for r in committed["restricted"]} == {"S1", "S3", "H1", "U1"}
    for prop in ("S1", "S2", "S3", "H1", "U1", "S4"):
        undecided = [e for e, a in committed["answers"][prop].items()
                     if a["verdict"] == "unknown"]
        assert not undecided, (prop, undecided[:5])
