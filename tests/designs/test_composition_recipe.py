"""Composition is a recipe (`spec.designs.compose`), not a special case: a dummy third
design declared here (a meter that records which contents' embeddings the model consumed),
composed after the encoder cache and registered, is judged by every design-generic checker
(explore, simulate, prove, the lattice, witness files and `explore --design`) with no
other edit; and the built-in path's D2+D7 engine death replays as a composed witness."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from model_checks.cli import main
from model_checks.designs.lattice import LatticeOptions, search
from model_checks.designs.path_witnesses import engine_death_actions, engine_death_config
from model_checks.designs.results import to_json, write_witnesses
from model_checks.designs.witness_files import read
from model_checks.explore.exploration import explore, replay
from model_checks.simulate.designs import simulate
from spec.config import Content
from spec.designs import DesignProperty, DriftSource, Scope, design_named, register, withdraw
from spec.designs.compose import ComposedDesign, Link, Stage
from spec.designs.encoder import ENCODER
from spec.designs.encoder.actions import Schedule
from spec.designs.encoder.config import EncoderConfig
from spec.designs.paths import PROCESSOR_THEN_ENCODER
from tests.designs.design_prove import BREAKS, HOLDS, ProofOptions, prove


@dataclass(frozen=True, slots=True)
class MeterConfig:
    environment: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class MeterState:
    seen: frozenset[Content] = frozenset()


@dataclass(frozen=True, slots=True)
class Record:
    """The model consumed embeddings of `content`."""

    content: Content


def only_first_contents(config: MeterConfig, state: MeterState) -> list[str]:
    return [f"consumed {c}" for c in state.seen if c.version > 0]


@dataclass(frozen=True)
class MeterDesign:
    name: str = "meter"
    title: str = "a meter of consumed contents (the recipe's third stage)"
    variants: tuple[str, ...] = ("M1",)
    sources: tuple[DriftSource, ...] = ()
    properties: tuple[DesignProperty, ...] = (
        DesignProperty("M1", "first contents only", "no reused content's embeddings consumed",
                       Scope.EVERY_STATE, only_first_contents),)
    rungs: tuple[str, ...] = ("one",)
    trace_tags: tuple[type, ...] = ()

    @property
    def refused(self) -> Mapping[str, str]:
        return {"D5": "one meter"}

    def instance(self, variant: str, environment: frozenset[str], rung: int = 0
                 ) -> MeterConfig:
        return MeterConfig(environment)

    def initial(self, config: MeterConfig) -> MeterState:
        return MeterState()

    def enabled(self, config: MeterConfig, state: MeterState) -> list[Record]:
        return []  # only the link drives it

    def step(self, config: MeterConfig, state: MeterState, action: Record) -> MeterState:
        return MeterState(state.seen | {action.content})

    def is_quiescent(self, config: MeterConfig, state: MeterState) -> bool:
        return True

    def config_from_json(self, data: Mapping[str, Any], variant: str,
                         environment: frozenset[str]) -> MeterConfig:
        return MeterConfig(environment)

    def action_to_json(self, action: Record) -> dict[str, Any]:
        return {"action": "Record", "content": {"identity": action.content.identity,
                                                "version": action.content.version}}

    def action_from_json(self, data: Mapping[str, Any]) -> Record:
        return Record(Content(data["content"]["identity"], data["content"]["version"]))


def _consumed(config: Any, before: Any, action: Any, after: Any) -> tuple[Any, ...]:
    return tuple(Record(c.embeddings) for c in after.last_consumed) \
        if isinstance(action, Schedule) else ()


def _build(environment: frozenset[str], rung: int) -> tuple[Any, ...]:
    encoder = ENCODER.instance("EC", environment & {"D1", "D7", "R1"})
    return replace(encoder, max_requests=2 + rung, max_items=1), MeterConfig()


def _no_failure(config: Any, state: Any) -> list[str]:
    return []


METERED = ComposedDesign(
    name="encoder+meter", title="encoder cache, then a meter",
    stages=(Stage(ENCODER, "EC", "E"), Stage(MeterDesign(), "M1", "M")),
    links=(Link(_consumed, lambda action: isinstance(action, Record)),),
    build=_build,
    end_to_end=(DesignProperty("Z1", "nothing", "holds everywhere", Scope.EVERY_STATE,
                               _no_failure),),
    rungs=("2 requests", "3 requests"))


@pytest.fixture
def metered() -> Iterator[ComposedDesign]:
    register(METERED)
    yield METERED
    withdraw(METERED.name)


def test_every_design_generic_checker_judges_the_composition(metered: ComposedDesign,
                                                             tmp_path: Path) -> None:
    d7 = frozenset({"D7"})
    config = metered.instance("EC+M1", d7)
    assert isinstance(config.configs[0], EncoderConfig)
    found = explore(metered, config, environment=d7)
    properties = {p.id: p for p in metered.properties}
    assert set(properties) == {"Z1", "E.S1", "E.S2", "E.S3", "E.S4", "E.U1", "M.M1"}
    witness = found.witness("M.M1")
    assert witness is not None and replay(metered, config, witness.actions, properties["M.M1"])
    assert found.verdict("Z1") == "holds" and found.verdict("E.S1") == "breaks"
    assert explore(metered, metered.instance("EC+M1", frozenset())).verdict("M.M1") == "holds"
    proved = prove(metered, config, ProofOptions(max_depth=8, variant="EC+M1", environment=d7))
    assert proved.verdict("M.M1") == BREAKS and proved.verdict("Z1") == HOLDS
    simulated = simulate(metered, config, examples=40, steps=8)
    assert simulated.steps > 0
    result = search(metered, "EC+M1", LatticeOptions(sizes=(1,)))
    assert [sorted(b.environment) for b in result.minimal["M.M1"]] == [["D7"]]
    assert to_json(result)["answers"]["M.M1"]["D1+D7"]["verdict"] == "breaks"
    for path in write_witnesses(result, tmp_path):
        assert read(path).design is metered
    assert "encoder: " in metered.refused["D5"] and "meter: one meter" in metered.refused["D5"]
    assert "D7" not in metered.refused  # a source one stage has is the composition's


def test_the_explore_command_judges_it(metered: ComposedDesign,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--design", "encoder+meter", "--environment", "D7"]) == 4
    assert "M.M1 breaks in" in capsys.readouterr().out
    assert main(["explore", "--design", "encoder+meter", "--environment", "D5"]) == 2
    assert "D5 cannot occur in design 'encoder+meter'" in capsys.readouterr().err


def test_the_path_s_engine_death_is_a_composed_witness() -> None:
    path = design_named("lru+encoder")
    assert path is PROCESSOR_THEN_ENCODER
    prop = next(p for p in path.properties if p.id == "E2E")
    reasons = replay(path, engine_death_config(), engine_death_actions(), prop)
    assert any("Attempted to assign 1 multimodal tokens to 2 placeholders" in r
               for r in reasons)
    without_rejections = engine_death_config().__class__(
        path.name, engine_death_config().configs, frozenset({"D7"}))
    with pytest.raises(ValueError):  # the rejections need D2
        replay(path, without_rejections, engine_death_actions(), prop)
