"""The LRU design's conformance cases, per variant: plain values, each with a `run` method.

A case is one scenario's script (`ScriptedCase`: its round trips through the adapter's calls,
or with `served`, through the implementation's own end-to-end call) or one Hypothesis machine
of generated lockstep walks on one configuration (`GeneratedCase`). `cases` lists them in the
order a run takes them. A case's `run` drives the adapter and hands every finished lockstep
run to the sink; a disagreement escapes it as `Disagreement`.

The configurations of the generated runs (`configurations`), per variant and deployment:
no drift, each drift source alone with the configuration it needs, every source at once, and
(the wide profile) every source with four identities of mixed sizes; then the same with
requests that may name one identity twice (`Config.duplicates`), as real traffic does: no
drift, and the deployment's sources together (alone, where it has one). The configurations
without duplicates keep their own runs, so what they catch does not depend on the
duplicates'.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import ClassVar

from model_checks.conform.adapter import Adapter, AdapterError, HarnessFailure
from model_checks.conform.lru_lockstep import (
    Driving,
    EngineFactory,
    Lockstep,
    Session,
    raised,
    replay,
    session,
)
from model_checks.conform.lru_lockstep.corpus import WitnessCase, corpus, witness_cases
from model_checks.conform.machine import Wiring, lockstep_machine, run_machine
from model_checks.conform.profiles import ConformProfile
from model_checks.scenarios.base import Scenario
from model_checks.simulate.lru_rules import LRU_RULES
from spec import ALL_DRIFT, Config, Content, Drift, Environment, ItemSize, Variant, needs_of
from spec.transitions import Action, P0Handle, P0ReceiveReply, P1Receive, Submit

Sink = Callable[[Lockstep], None]
"""Called with every finished lockstep run of a case, failed or not."""


@dataclass(frozen=True)
class ScriptedCase:
    """One scenario's script on `config`, settled as the scenario says. `served`: its
    plain round trips go through the implementation's own end-to-end call (`EndToEnd`),
    with the engine in this process whatever the engine factory."""

    variant: Variant
    config: Config
    scenario: Scenario
    served: bool = False

    scripted: ClassVar[bool] = True
    """A scripted case is shrunk greedily when it fails (`lockstep.shrink`)."""

    @property
    def label(self) -> str:
        """The case's name in records and findings (after the variant)."""
        return f"{'served' if self.served else 'scenario'} {self.scenario.name}"

    def run(self, adapter: Adapter, factory: EngineFactory | None, sink: Sink) -> None:
        """Run the script in lockstep; raises its `Disagreement`."""
        s = self.scenario
        if self.served:
            raised(replay(self.config, adapter, s.script, Driving(settle=s.settle, served=True),
                          sink))
            return
        raised(replay(self.config, adapter, s.script,
                      Driving(settle=s.settle, engine_factory=factory), sink))


@dataclass(frozen=True)
class GeneratedCase:
    """The profile's random lockstep walks on the configuration named `name`, seeded by
    (`seed`, variant, name); Hypothesis shrinks a failing walk."""

    variant: Variant
    config: Config
    name: str
    profile: ConformProfile
    seed: int

    scripted: ClassVar[bool] = False

    @property
    def label(self) -> str:
        """The case's name in records and findings (after the variant)."""
        return f"generated {self.name}"

    def run(self, adapter: Adapter, factory: EngineFactory | None, sink: Sink) -> None:
        """Run the walks; raises the shrunk `Disagreement` of the first failing one."""
        ident = re.sub(r"\W", "_", f"{self.variant.name}_{self.name}")
        def start() -> Session:
            return session(self.config, adapter, Driving(engine_factory=factory))

        machine = lockstep_machine(ident, self.config, LRU_RULES, Wiring(
            start, (HarnessFailure, AdapterError), lambda run: sink(run.run)))
        key = f"{self.seed}:{self.variant.name}:{self.name}".encode()
        run_machine(machine, self.profile.walks, self.profile.length, zlib.crc32(key),
                    database=self.profile.database)


Case = ScriptedCase | GeneratedCase | WitnessCase


def cases(
    variant: Variant, profile: ConformProfile, seed: int,
    environment: frozenset[Drift] | None = None, served: bool = False,
) -> Iterator[Case]:
    """The corpus (scripted), then one generated case per configuration; with `environment`,
    only what lies inside it, and the committed witnesses inside it, each continued and
    mutated (`lru_lockstep.corpus.witness_cases`), before the generated cases. `served` (an adapter
    whose front end offers `EndToEnd`): each scenario with a plain round trip is run a
    second time with those round trips through the implementation's own end-to-end call."""
    if profile.corpus:
        for scenario in corpus():
            if variant not in scenario.variants:
                continue
            config = scenario.config(variant)
            if environment is not None and not config.environment <= environment:
                continue
            yield ScriptedCase(variant, config, scenario)
            if served and _has_round_trip(scenario.script, config):
                yield ScriptedCase(variant, config, scenario, served=True)
    if environment is not None and profile.corpus:
        yield from witness_cases(variant, environment, seed)
    chosen = configurations(variant, profile.wide, environment) if profile.walks else ()
    for name, config in chosen:
        yield GeneratedCase(variant, config, name, profile, seed)


def _has_round_trip(script: tuple[Action, ...], config: Config) -> bool:
    """A submit followed by its handle, P1's receive of the first message, the reply."""
    if config.enables(Drift.D9):
        return False
    return any(
        isinstance(a, Submit) and isinstance(b, P0Handle) and isinstance(c, P1Receive)
        and c.index == 0 and isinstance(d, P0ReceiveReply)
        for a, b, c, d in zip(script, script[1:], script[2:], script[3:], strict=False)
    )


_SKEW = (ItemSize(Content("b"), 1, 2), ItemSize(Content("c"), 2, 1))
_OVERSIZE = (ItemSize(Content("c"), 3, 3),)
_ALL_SIZES = (
    ItemSize(Content("a", 1), 1, 3),
    ItemSize(Content("b"), 1, 2),
    ItemSize(Content("c"), 3, 3),
)


_VARIED = (ItemSize(Content("b"), 2, 2),)
_VARIED_BUDGET = 3
"""Sizes that vary with no drift source: b two bytes, a and c one each, in a three-byte
budget (equal on both sides; D9 and D11 only make the sides disagree or exceed the budget):
any two items fit, three do not, so that an implementation counting items instead of bytes
disagrees in every environment."""

_WIDE_SIZES = (
    ItemSize(Content("b"), 2, 2),
    ItemSize(Content("b", 1), 1, 1),
    ItemSize(Content("c"), 1, 2),
    ItemSize(Content("d"), 5, 5),
)


def _alone(variant: Variant, drift: Drift) -> Config:
    """One drift source with the configuration it needs (`spec.Drift.needs`): two front ends
    on a one-byte budget, so that their shadows evict (D5); two contents per identity (D7);
    three items (D8); b and c skewed (D9); an oversized c (D11); elsewhere a two-byte b in a
    three-byte budget (`_VARIED`)."""
    needs = drift.needs
    budget = 1 if needs.front_ends > 1 else 2
    sizes = (*(_SKEW if needs.skewed_sizes else ()), *(_OVERSIZE if needs.oversized else ()))
    return Config(
        variant=variant, environment=frozenset({drift}), max_requests=6,
        front_ends=needs.front_ends, budget=budget,
        versions=needs.versions, max_items=max(2, needs.items),
        sizes=sizes,
    ) if sizes or budget < 2 else Config(
        variant=variant, environment=frozenset({drift}), max_requests=6,
        front_ends=needs.front_ends, budget=_VARIED_BUDGET, versions=needs.versions,
        max_items=max(2, needs.items), sizes=_VARIED,
    )


def _combined(variant: Variant, env: frozenset[Drift]) -> Config:
    """Every source of `env` at once, each with what it needs (`spec.Drift.needs`): two front
    ends (D5), two contents (D7), three items (D8), skewed sizes (D9, with D7 also a@1's), an
    oversized c (D11)."""
    needs = needs_of(env)
    sizes = tuple(s for s in _ALL_SIZES if (
        (s.content.identity == "a" and needs.versions > 1 and needs.skewed_sizes)
        or (s.content.identity == "b" and needs.skewed_sizes)
        or (s.content.identity == "c" and needs.oversized)))
    budget = 2
    if not any(s.content.identity == "b" for s in sizes):
        sizes = (*sizes, *_VARIED)
        budget = 2 if needs.oversized else _VARIED_BUDGET
    return Config(
        variant=variant, environment=env, front_ends=needs.front_ends, budget=budget,
        versions=needs.versions, max_items=max(2, needs.items),
        sizes=sizes, max_requests=7, max_in_flight=3,
    )


def configurations(
    variant: Variant, wide: bool = False, environment: frozenset[Drift] | None = None,
) -> Iterator[tuple[str, Config]]:
    """No drift, each drift source alone (with the configuration it needs), all at once, and
    (`wide`) all at once with four identities of mixed sizes in a 4-byte budget. Sizes vary
    in each (a two-byte b beside one-byte items, where the budget has room for it).

    `environment` (a deployment's drift sources; None: every source): only the sources in
    it, alone and all of them at once (labelled by the environment); the wide configuration,
    which needs every source, only when it is every source."""
    env = ALL_DRIFT if environment is None else environment
    none = Config(variant=variant, max_requests=6, budget=_VARIED_BUDGET, sizes=_VARIED)
    yield "none", none
    for drift in Drift:
        if drift not in env:
            continue
        yield drift.value, _alone(variant, drift)
    if len(env) > 1:
        yield "all" if env == ALL_DRIFT else Environment.of(env).text, _combined(variant, env)
    if wide and env == ALL_DRIFT:
        yield "all-wide", Config(
            identities=("a", "b", "c", "d"), budget=4, variant=variant, environment=ALL_DRIFT,
            front_ends=2, versions=2, max_items=3, sizes=_WIDE_SIZES, max_requests=8,
            max_in_flight=3,
        )
    yield "none-duplicates", replace(none, duplicates=True)
    if len(env) > 1:
        label = "all" if env == ALL_DRIFT else Environment.of(env).text
        yield f"{label}-duplicates", replace(_combined(variant, env), duplicates=True)
    elif env:
        (drift,) = env
        yield f"{drift.value}-duplicates", replace(_alone(variant, drift), duplicates=True)
