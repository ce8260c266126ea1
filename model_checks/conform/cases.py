"""A conformance run's cases, per variant: plain values, each with a `run` method.

A case is one scenario's script (`ScriptedCase`: its round trips through the adapter's calls,
or with `served`, through the implementation's own end-to-end call) or one Hypothesis machine
of generated lockstep walks on one configuration (`GeneratedCase`). `cases` lists them in the
order a run takes them. A case's `run` drives the adapter and hands every finished lockstep
run to the sink; a disagreement escapes it as `Disagreement`.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import ClassVar

from model_checks.conform.adapter import Adapter, AdapterError, HarnessFailure
from model_checks.conform.configurations import configurations
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
from spec import Config, Drift, Variant
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
