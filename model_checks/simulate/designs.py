"""The Hypothesis searches of any design through the one machine (`simulate.machine`, the
design's rules from `lru_rules.rules_for`): `simulate --design NAME` for a design other than
the LRU's (whose matrix `simulate.run` searches).

A search watches every property of the design at once; a broken one comes back with
Hypothesis's shrunk run as a counterexample `Judgement` (replayable with
`exploration.replay`), and the search runs again without it, until no other property
breaks. Derandomized and budgeted in examples
and steps, never seconds. A search that took no step (no example, no step allowed, or nothing
enabled in the initial state) decided nothing and says so (`failed`): it is never a pass.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import Any

from model_checks.explore.judgement import Judgement, Status
from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_OK, UsageError
from model_checks.simulate.profiles import PROFILES
from spec.config import InvalidConfiguration
from spec.designs import RefusedDrift, UnknownDesign, design_named
from spec.designs.base import Design
from spec.drift import Environment

BREAKS, NOT_FOUND, NOT_RUN = "breaks", "not found", "not run"
"""The verdicts: a shrunk break; no break in the budget; no step taken (a failure)."""

SHRINKS = 500
"""Shrinking's bound, a count (Hypothesis's own), never seconds (`shrink_bound`)."""


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """What one budgeted search found on one instance: `steps` counts the actions taken
    over every run (examples and shrinking included)."""

    design: str
    variant: str
    environment: frozenset[str]
    examples: int
    steps_per_example: int
    steps: int
    property_ids: tuple[str, ...]
    counterexamples: tuple[Judgement, ...]

    @property
    def failed(self) -> bool:
        """No step was taken: nothing was checked beyond the initial state."""
        return self.steps == 0

    def verdict(self, property_id: str) -> str:
        if self.counterexample(property_id) is not None:
            return BREAKS
        return NOT_RUN if self.failed else NOT_FOUND

    def counterexample(self, property_id: str) -> Judgement | None:
        return next((c for c in self.counterexamples if c.property_id == property_id), None)


def simulate(design: Design, config: Any, *, examples: int = 100, steps: int = 30,
             variant: str = "", environment: frozenset[str] = frozenset()
             ) -> SimulationResult:
    """Search `config` with at most `examples` runs of at most `steps` actions each, per
    round; each round that breaks a property removes it from the next round's checks."""
    found: list[Judgement] = []
    taken = 0
    while True:
        watched = tuple(p.id for p in design.properties
                        if p.id not in {c.property_id for c in found})
        if not watched or examples < 1 or steps < 1:
            break
        broken, round_steps = _round(design, config, watched, examples, steps)
        taken += round_steps
        if broken is None:
            break
        found.append(broken)
    return SimulationResult(design.name, variant, environment, examples, steps, taken,
                            tuple(p.id for p in design.properties), tuple(found))


def _round(design: Design, config: Any, watched: tuple[str, ...], examples: int, steps: int
           ) -> tuple[Judgement | None, int]:
    """One Hypothesis search over `watched`: the shrunk break (or None), and the steps it
    took."""
    from dataclasses import replace

    from hypothesis.reporting import with_reporter
    from hypothesis.stateful import run_state_machine_as_test

    from model_checks.simulate.hypothesis_private import shrink_bound
    from model_checks.simulate.lru_rules import rules_for
    from model_checks.simulate.machine import PropertyViolated, machine_class

    name = f"{type(design).__name__}Machine"  # the seed (`machine_class`)
    cls = machine_class(name, rules_for(design), config, watched, focused=True,
                        registered=False)
    budget = replace(PROFILES["ci"], steps=steps).settings(examples)
    try:
        with shrink_bound(SHRINKS), with_reporter(lambda text: None):
            run_state_machine_as_test(cls, settings=budget)
    except PropertyViolated as error:
        actions = cls.design_rules.actions(error.trace)[:error.step_number]
        return (Judgement(error.property_id, Status.COUNTEREXAMPLE, error.reason, actions),
                cls.stats.steps)
    return None, cls.stats.steps


def run_design(args: argparse.Namespace) -> int:
    """`simulate --design NAME` (not lru): each variant (`--variant`, default the design's
    last) under each environment (`--environment`, default none) at the base rung, searched
    at the profile's budget; each property's verdict printed with its witness; `--json`
    writes the summaries. EXIT_MISMATCH where a search took no step."""
    try:
        design = design_named(args.design)
        profile = PROFILES[args.profile]
        codes, summaries = [], []
        for variant in args.variant or [design.variants[-1]]:
            if variant not in design.variants:
                raise UsageError(f"--variant: got {variant!r}; design {design.name}'s "
                                 f"variants are {', '.join(design.variants)}")
            for chosen in args.environment or [Environment()]:
                config = design.instance(variant, chosen.ids)
                found = simulate(design, config, examples=profile.break_examples,
                                 steps=profile.steps, variant=variant,
                                 environment=chosen.ids)
                codes.append(_print(design, chosen, found))
                summaries.append({"variant": variant, "environment": chosen.text,
                                  "steps": found.steps,
                                  "verdicts": {p: found.verdict(p) for p in found.property_ids}})
    except (UnknownDesign, RefusedDrift, InvalidConfiguration) as error:
        raise UsageError(str(error)) from None
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summaries, indent=1) + "\n")
    return max(codes)


def _print(design: Design, chosen: Environment, found: SimulationResult) -> int:
    print(f"{design.name} {found.variant} {chosen.text}: {found.examples} examples of at most "
          f"{found.steps_per_example} steps, {found.steps:,} steps taken")
    for prop in found.property_ids:
        witness = found.counterexample(prop)
        print(f"  {prop} {found.verdict(prop)}"
              + (f" in {len(witness.actions)} steps: {witness.reason}" if witness else ""))
        for number, action in enumerate(witness.actions if witness else (), start=1):
            print(f"      {number}. {json.dumps(design.action_to_json(action))}")
    return EXIT_MISMATCH if found.failed else EXIT_OK
