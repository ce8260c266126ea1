"""One interface judges an instance of any design (`judging.Judging`): `judging_for` gives the
LRU design its own judging (`lru_judging`: its judge on the graph under its reductions) and
every other design `DesignJudging` (its properties checked on every transition). The LRU
design's judging reports what the design-generic judging of its properties reports on the
same instance: the same verdicts and witnesses of the same lengths, each replaying to a
break, from no more states; and the comparison tells a wrong verdict."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from model_checks.explore.exploration import replay
from model_checks.explore.judgement import JudgedInstance, Judgement, Status
from model_checks.explore.judging import DesignJudging, judging_for
from model_checks.explore.lru_judging.declaration import LRU_JUDGING
from spec.designs.encoder.design import ENCODER
from spec.designs.lru_design import LRU
from spec.designs.shm.design import SHM

LRU_CASES = [("V0", frozenset({"D2"})), ("V1", frozenset({"D1"})), ("V2", frozenset())]


def test_the_table_gives_the_lru_design_its_own_judging_and_the_others_the_generic_one() -> None:
    assert judging_for(LRU.name) is LRU_JUDGING
    assert judging_for(SHM.name) == DesignJudging(SHM)
    assert judging_for(ENCODER.name) == DesignJudging(ENCODER)


def _disagreements(design: Any, config: Any, own: JudgedInstance,
                   generic: JudgedInstance) -> list[str]:
    """Where the design's own judging says otherwise than the generic one on its properties."""
    found = []
    for prop in design.properties:
        mine, theirs = own.judgement(prop.id), generic.judgement(prop.id)
        assert mine is not None and theirs is not None, prop.id
        if own.verdict(prop.id) != generic.verdict(prop.id):
            found.append(f"{prop.id}: {own.verdict(prop.id)} vs {generic.verdict(prop.id)}")
        elif mine.status is Status.COUNTEREXAMPLE:
            if len(mine.actions) != len(theirs.actions):
                found.append(f"{prop.id}: {len(mine.actions)} vs {len(theirs.actions)} steps")
            if not replay(design, config, mine.actions, prop):
                found.append(f"{prop.id}: its witness does not replay to a break")
    return found


@pytest.mark.parametrize(("variant", "environment"), LRU_CASES)
def test_the_lru_design_s_judging_agrees_with_the_generic_one(
        variant: str, environment: frozenset[str]) -> None:
    config = LRU.instance(variant, environment)
    own = judging_for(LRU.name).judge(config, max_states=100_000)
    generic = DesignJudging(LRU).judge(config, max_states=100_000)
    assert own.complete and generic.complete and 0 < own.states <= generic.states
    assert not _disagreements(LRU, config, own, generic)
    assert any(own.verdict(p.id) == "breaks" for p in LRU.properties) or variant == "V2"


def test_the_comparison_tells_a_wrong_verdict() -> None:
    """Planted: the LRU judging's break of S3 turned into a proof is a disagreement."""
    config = LRU.instance("V0", frozenset({"D2"}))
    own = judging_for(LRU.name).judge(config, max_states=100_000)
    generic = DesignJudging(LRU).judge(config, max_states=100_000)
    wrong = dataclasses.replace(own, judgements=tuple(
        Judgement(j.property_id, Status.PROVED, "") if j.property_id == "S3" else j
        for j in own.judgements))
    assert _disagreements(LRU, config, wrong, generic) == ["S3: holds vs breaks"]


def test_a_search_cut_by_the_state_limit_decides_no_proof() -> None:
    config = dataclasses.replace(SHM.instance("O1", frozenset({"D3"})), max_requests=2,
                                 readers=1)
    cut = judging_for(SHM.name).judge(config, max_states=5)
    assert not cut.complete
    assert {cut.verdict(p.id) for p in SHM.properties} <= {"breaks", "unknown"}
    assert "unknown" in {cut.verdict(p.id) for p in SHM.properties}
