"""The instance builder: which configurations (`Config`) the checkers search, stated as data.

As TLC keeps a model's constants in its configuration, not in the specification, the spec's
`Config` says what an instance may be and a `Family` says which instances a checker searches:
its base constants, and what each drift source's needs (`spec.Drift.needs`) add to them.
`realise` is the one builder: it turns a family and an environment into an `Instance` (the
constants without a variant), and `Instance.config` makes that a configuration. A checker
that searches less cuts the instance down (`Cut`, `Instance.cut`), never resizing it.

What a family grows, per need (every other constant is the family's base):
- `front_ends`: two under D5 (`Needs.front_ends`); D5's router half is one front end and two
  engines (`realise(..., routed=True)`);
- `versions`: contents per identity (D7: `Needs.versions`);
- items per request: the base, raised to what the drift needs (`Items.GROWN`), the need up to
  the base (`Items.NEEDED`), or the base alone (`Items.FIXED`);
- identities: each `Grown` identity where its need holds (D8's extra identity, D9's and D11's
  own identities), after the base ones and in the family's order;
- sizes: each `Sized` content where its need holds (and its `unless` need does not), if the
  instance has that content (its identity, and a version below `versions`); every other
  content is 1 byte on both sides;
- duplicates: the family's (`Family.duplicates`): whether a request may name one identity
  twice. Real traffic does; no drift source is needed for it.

Families live beside the checkers that search them; designs cannot import the checkers, which
is why the builder lives in the spec.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields, replace
from typing import Any

from spec.config import Config, Content, ItemSize
from spec.drift import Drift, Needs, needs_of
from spec.values import init_values
from spec.variants import Variant

NEED_FLAGS = frozenset(f.name for f in fields(Needs) if f.type in ("bool", bool))
"""The needs a `Grown` identity or a `Sized` content may be conditioned on."""


@dataclass(frozen=True)
class Instance:
    """The constants of one instance, without a variant or environment (`config` adds
    them). `sizes` lists the contents whose size is not 1 byte on both sides; `duplicates`
    lets a request name one identity more than once (`spec.Config.duplicates`)."""

    identities: tuple[str, ...]
    budget: int
    max_requests: int
    max_in_flight: int
    max_retries: int
    max_items: int
    sizes: tuple[ItemSize, ...] = ()
    versions: int = 1
    front_ends: int = 1
    engines: int = 1
    duplicates: bool = False

    def __reduce__(self) -> tuple[type[Instance], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def config(self, variant: Variant, drift: frozenset[Drift]) -> Config:
        """This instance as the spec's configuration for `variant` under `drift` (the spec
        validates it: an instance a drift source does not allow is an error naming it)."""
        return Config(
            identities=self.identities, budget=self.budget, sizes=self.sizes,
            versions=self.versions, variant=variant, environment=drift,
            max_retries=self.max_retries, max_in_flight=self.max_in_flight,
            max_requests=self.max_requests, max_items=self.max_items,
            front_ends=self.front_ends, engines=self.engines, duplicates=self.duplicates,
        )

    def cut(self, cut: Cut) -> Instance:
        """This instance cut down, never resized: its first `cut.identities` identities,
        each at its sizes here, and every bound at most this instance's (a larger bound asked
        for is this instance's); retries set to `cut.retries` where given."""
        kept = self.identities[: cut.identities or len(self.identities)]
        bounds: dict[str, Any] = {name: min(value, getattr(self, name))
                                  for name, value in cut.bounds().items()}
        if cut.retries is not None:
            bounds["max_retries"] = cut.retries
        return replace(
            self, identities=kept,
            sizes=tuple(s for s in self.sizes if s.content.identity in kept), **bounds,
        )


@dataclass(frozen=True)
class Cut:
    """What a checker trims from a family's instance: at most this many identities (the
    first ones), requests, unfinished requests, items per request and retries (`None`: the
    instance's). `retries`, unlike the bounds, is set, not cut: a checker's job may search
    more retries than the family's. A bound below 1 (retries: below 0) is a `ValueError`."""

    identities: int | None = None
    max_requests: int | None = None
    max_in_flight: int | None = None
    max_items: int | None = None
    max_retries: int | None = None
    retries: int | None = None

    def __reduce__(self) -> tuple[type[Cut], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __post_init__(self) -> None:
        for name in ("identities", *self.bounds(), "max_retries", "retries"):
            value = getattr(self, name)
            low = 0 if name in ("max_retries", "retries") else 1
            if value is not None and value < low:
                raise ValueError(f"cut: {name} must be at least {low}, got {value}")

    def bounds(self) -> dict[str, int]:
        """The bounds this cut lowers (those it names)."""
        named = {"max_requests": self.max_requests, "max_in_flight": self.max_in_flight,
                 "max_items": self.max_items, "max_retries": self.max_retries}
        return {name: value for name, value in named.items() if value is not None}


@dataclass(frozen=True)
class Grown:
    """An identity a family adds where the drift needs `need` (a `Needs` flag)."""

    identity: str
    need: str

    def __reduce__(self) -> tuple[type[Grown], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __post_init__(self) -> None:
        _check_need(self.need)


@dataclass(frozen=True)
class Sized:
    """A content's size on each side (P0, P1) where the drift needs `need` (a `Needs` flag;
    empty: always) and not `unless`, in an instance that has the content."""

    content: Content
    shadow_bytes: int
    receiver_bytes: int
    need: str = ""
    unless: str = ""

    def __reduce__(self) -> tuple[type[Sized], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __post_init__(self) -> None:
        for need in (self.need, self.unless):
            if need:
                _check_need(need)

    def applies(self, needs: Needs) -> bool:
        return ((not self.need or bool(getattr(needs, self.need)))
                and not (self.unless and getattr(needs, self.unless)))


class Items(enum.Enum):
    """How a family's items per request meet what the drift needs (`Needs.items`)."""

    GROWN = "the base, raised to the need"
    NEEDED = "the need, at most the base"
    FIXED = "the base alone"


@dataclass(frozen=True)
class Family:
    """One checker's instances, as data: the base constants (the instance with no drift)
    and what the drift's needs add (`realise`; the module docstring lists the rules)."""

    identities: tuple[str, ...]
    budget: int
    max_requests: int
    max_in_flight: int
    max_retries: int
    max_items: int
    items: Items = Items.GROWN
    grown: tuple[Grown, ...] = ()
    sizes: tuple[Sized, ...] = ()
    duplicates: bool = False

    def __reduce__(self) -> tuple[type[Family], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def config(self, variant: Variant, drift: frozenset[Drift]) -> Config:
        """This family's configuration for `variant` under `drift`."""
        return realise(self, drift).config(variant, drift)


def realise(family: Family, drift: frozenset[Drift], *, routed: bool = False) -> Instance:
    """The instance of `family` under `drift`: its base constants and what every source
    of `drift` needs (module docstring). `routed`: D5 as one front end and two engines
    behind a router, instead of two front ends."""
    needs = needs_of(drift)
    identities = family.identities + tuple(
        g.identity for g in family.grown if getattr(needs, g.need))
    contents = {Content(i, v) for i in identities for v in range(needs.versions)}
    sizes = tuple(ItemSize(s.content, s.shadow_bytes, s.receiver_bytes)
                  for s in family.sizes if s.applies(needs) and s.content in contents)
    items = {Items.GROWN: max(family.max_items, needs.items),
             Items.NEEDED: min(family.max_items, needs.items),
             Items.FIXED: family.max_items}[family.items]
    return Instance(
        identities=identities, budget=family.budget, sizes=sizes, versions=needs.versions,
        max_requests=family.max_requests, max_in_flight=family.max_in_flight,
        max_retries=family.max_retries, max_items=items,
        front_ends=1 if routed else needs.front_ends, engines=2 if routed else 1,
        duplicates=family.duplicates,
    )


def _check_need(need: str) -> None:
    if need not in NEED_FLAGS:
        raise ValueError(f"unknown need {need!r}; one of {sorted(NEED_FLAGS)}")
