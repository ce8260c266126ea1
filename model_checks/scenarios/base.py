"""A scenario of the LRU design: a hand-written trace, run on every variant, with the
properties it must break (per design by nature: its script is the LRU design's actions, its
configuration the LRU's; the suite is `scenarios.catalog`).

A scenario's script is the same for every variant. A run stops early only when the system
faults (V0's crash, the P0 assertion, a hang): nothing is enabled after a fault. Any other
disabled step is a defect of the scenario and raises. With `settle`, the run ends by driving
the system to quiescence under the fairness assumption, so that liveness (L1-L4) is judged on
the recovery path too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from spec import VARIANTS, Config, Trace, Variant, registry
from spec.fairness import drive_to_quiescence
from spec.machine import initial, step
from spec.state import ClientItem
from spec.trace import Step, TraceError
from spec.transitions import Action, InvalidAction, Submit


def item(identity: str, version: int = 0) -> ClientItem:
    """An item sent with its media."""
    return ClientItem(identity, version, True)


def uuid_only(identity: str, version: int = 0) -> ClientItem:
    """An item sent as its identity only, trusting the server to hold it."""
    return ClientItem(identity, version, False)


def submit(*items: ClientItem, front_end: int = 0) -> Submit:
    return Submit(tuple(items), front_end)


@dataclass(frozen=True)
class Scenario:
    """name: a stable id; drift: the drift source ids it exercises ("" for none);
    story: what happens and why it matters; config: the configuration for a variant;
    script: the actions; expected: the property ids each variant violates."""

    name: str
    drift: tuple[str, ...]
    story: str
    config: Callable[[Variant], Config]
    script: tuple[Action, ...]
    expected: Mapping[str, frozenset[str]]
    settle: bool = True
    variants: tuple[Variant, ...] = field(default=VARIANTS)
    judges_cell: bool = True
    """False for a scenario on a larger instance than the matrix's (more unfinished requests):
    its verdicts are printed and tested, but are no records of the matrix's cells."""

    def run(self, variant: Variant) -> Trace:
        config = self.config(variant)
        state = initial(config)
        steps: list[Step] = []
        for number, action in enumerate(self.script, start=1):
            if state.fault is not None:
                break
            try:
                state = step(config, state, action)
            except InvalidAction as error:
                where = f"scenario {self.name}, {variant.name}, step {number}"
                raise TraceError(f"{where}: {error}") from None
            steps.append(Step(action, state))
        if self.settle:
            steps.extend(Step(a, s) for a, s in drive_to_quiescence(config, state))
        return Trace(config, initial(config), tuple(steps))


def violated(trace: Trace) -> frozenset[str]:
    """The ids of every registry property the trace violates."""
    return frozenset(p.id for p in registry() if p.check_trace(trace) is not None)


def per_variant(**expected: str) -> dict[str, frozenset[str]]:
    """Expectations written as V0="S3 H1 L4", V1="H1", ...; every variant must be named."""
    names = {v.name for v in VARIANTS}
    if set(expected) != names:
        raise ValueError(f"name every variant exactly once, got {sorted(expected)}")
    return {name: frozenset(ids.split()) for name, ids in expected.items()}


def every_variant(ids: str) -> dict[str, frozenset[str]]:
    """The same expected violations `ids` in every variant."""
    return {v.name: frozenset(ids.split()) for v in VARIANTS}


def by_knob(member: Callable[[Variant], bool], ids: str, otherwise: str
            ) -> dict[str, frozenset[str]]:
    """Expected violations per class of variants, by their knobs: `ids` in every variant
    `member` accepts, `otherwise` in the rest (a new variant gets what its knobs call for)."""
    return {v.name: frozenset((ids if member(v) else otherwise).split()) for v in VARIANTS}
