"""What a design is, as the checkers see it: a transition system with its own drift sources
and properties, independent of how its state is laid out.

A *design* is one way of building the paired caches (the key-replicated LRU of V0-V4, the
shared-memory object store, ...). It declares, once:

- its variants (the protocol versions it has) and its drift sources: the environment events
  and configurations that can occur in it, each with what it does there, and the sources of
  the project's catalogue that cannot occur in it, each with the reason (`refused`);
- its properties: state predicates checked on every reachable state, or on every quiescent
  state (nothing in flight, nothing left to read: where a claim about "forever" becomes a
  claim about one state, as usability does);
- its instance builder (`instance`: the finite configuration a checker explores for a
  variant and an environment) and its transition system (`initial`, `enabled`, `step`).

Every design-generic checker (`model_checks.designs`) reads only this interface, so a new
design is judged by every one of them with no edit to them (docs/architecture.md, "A new
design"; `tests/spec/test_spec_new_design.py`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from spec.drift import source_order as source_order

DEFAULT_DESIGN = "lru"
"""The design a checker searches unless told another (`--design`): the key-replicated LRU
design, whose `name` this is."""


class UnknownDesign(ValueError):
    """A design, variant or drift source a design does not have; the message lists what it has."""


class RefusedDrift(ValueError):
    """A drift source that cannot occur in the design asked for; the message says why."""


class Scope(enum.Enum):
    """Where a design property is checked."""

    EVERY_STATE = "every reachable state"
    QUIESCENT = "every quiescent reachable state"

    def __repr__(self) -> str:
        return f"Scope.{self.name}"

    __hash__ = object.__hash__  # members are singletons


@dataclass(frozen=True, slots=True)
class DriftSource:
    """A drift source as it occurs in one design: its id (shared with the catalogue where the
    event is the same one) and what it does in this design."""

    id: str
    title: str
    effect: str


@dataclass(frozen=True, slots=True)
class DesignProperty:
    """A property of one design. `check(config, state)` returns the reasons `state` violates
    it (empty: it holds); with `Scope.QUIESCENT` it is only asked of states the design calls
    quiescent."""

    id: str
    title: str
    statement: str
    scope: Scope
    check: Callable[[Any, Any], list[str]]


class Design(Protocol):
    """The interface every design-generic checker reads. Actions and states are the design's
    own frozen, hashable values; `action_from_json(action_to_json(a)) == a`."""

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def variants(self) -> tuple[str, ...]: ...

    @property
    def sources(self) -> tuple[DriftSource, ...]: ...

    @property
    def refused(self) -> Mapping[str, str]: ...

    @property
    def properties(self) -> tuple[DesignProperty, ...]: ...

    @property
    def trace_tags(self) -> tuple[type, ...]:
        """The classes of its state values a trace writes as ITF variants (`{"tag": the
        class's name, "value": its record}`, `model_checks.kernel.itf.expression`), where a
        reader must tell the kinds of one slot apart (the LRU design's `Entry` and `Ghost`);
        every other value is written by its Python kind."""
        ...

    @property
    def rungs(self) -> tuple[str, ...]:
        """The instance ladder, smallest first, each rung in words ("2 requests"); a run of
        one rung is a run of the next."""
        ...

    def instance(self, variant: str, environment: frozenset[str], rung: int = 0) -> Any:
        """The configuration the checkers explore for `variant` under `environment` at
        `rung`: the smallest that lets every source of `environment` occur, and a superset's
        instance contains every behaviour of a subset's (so breaks are monotone in the
        environment)."""
        ...

    def initial(self, config: Any) -> Any: ...

    def enabled(self, config: Any, state: Any) -> Sequence[Any]: ...

    def step(self, config: Any, state: Any, action: Any) -> Any: ...

    def is_quiescent(self, config: Any, state: Any) -> bool: ...

    def config_from_json(self, data: Mapping[str, Any], variant: str,
                         environment: frozenset[str]) -> Any:
        """The configuration a witness file states (its constants, as
        `model_checks.designs.results.describe` writes them), of `variant` under
        `environment`."""
        ...

    def action_to_json(self, action: Any) -> dict[str, Any]: ...

    def action_from_json(self, data: Mapping[str, Any]) -> Any: ...


def check_environment(design: Design, environment: frozenset[str]) -> None:
    """Raise `RefusedDrift` (naming the reason) for a source that cannot occur in `design`,
    and `UnknownDesign` for one it does not know; otherwise return."""
    for source in sorted(environment):
        if source in design.refused:
            raise RefusedDrift(
                f"{source} cannot occur in design {design.name!r}: {design.refused[source]}"
            )
    known = {s.id for s in design.sources}
    unknown = sorted(environment - known)
    if unknown:
        raise UnknownDesign(
            f"design {design.name!r} has no drift source {', '.join(unknown)}; "
            f"it has {', '.join(sorted(known, key=source_order))}"
        )


def check_variant(design: Design, variant: str) -> None:
    if variant not in design.variants:
        raise UnknownDesign(
            f"design {design.name!r} has no variant {variant!r}; it has "
            f"{', '.join(design.variants)}"
        )
