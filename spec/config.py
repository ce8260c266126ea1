"""The configuration of one model instance: finite, validated at construction.

Every configuration error names the fix (a definition error says how to fix it), and a
configuration that needs a drift source to be meaningful (two front ends, a second content for
an identity, unequal sizes, an item over the budget) is rejected unless that source is enabled,
so that an environment says exactly which drift a run contains.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, cast

from spec.drift import Drift
from spec.values import init_values
from spec.variants import V3, Variant

_T = TypeVar("_T")


class InvalidConfiguration(ValueError):
    """A configuration that cannot describe a run; the message says how to fix it."""


@dataclass(frozen=True, slots=True, order=True)
class Content:
    """One content of an identity. Version 0 is the content the identity's hash names; higher
    versions exist only under identity reuse (D7)."""

    identity: str
    version: int = 0

    def __reduce__(self) -> tuple[type[Content], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)


@dataclass(frozen=True, slots=True)
class ItemSize:
    """The bytes each side accounts for one content: P0 before sending, P1 after receiving."""

    content: Content
    shadow_bytes: int
    receiver_bytes: int

    def __reduce__(self) -> tuple[type[ItemSize], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)


@dataclass(frozen=True, slots=True)
class Config:
    """A finite instance of the system.

    identities: the identities clients may name.
    budget: the byte budget of every cache (shadow and receiver alike).
    sizes: bytes per content and side; a content not listed has size 1 on both sides.
    versions: contents per identity (1 unless D7).
    variant: the protocol variant under check.
    environment: the drift sources enabled.
    max_retries: R, how often the client retries a request that failed with a miss error.
    max_in_flight: how many client requests may be unfinished at once.
    max_requests: how many requests the client submits in a run (bounds the state space).
    max_items: the most items one request carries.
    front_ends: how many front ends share the engine (2 only under D5).
    duplicates: a request may name one identity more than once, as real traffic does (the
        same image twice in one prompt, or two equal images: equal content hashes; under D7
        one identity with two contents). No drift source: the protocol must serve it. False
        keeps every request's identities distinct (a smaller instance, not another system).
    engines: how many engines one front end's router spreads its messages over (2 only under
        D5: the other half of D5, data-parallel engines, each with its own receiver cache,
        behind the one front end's one shadow; see `spec.transitions.front_end`). The two
        halves of D5 are separate configurations: front_ends and engines are not both 2.
    """

    identities: tuple[str, ...] = ("a", "b", "c")
    budget: int = 2
    sizes: tuple[ItemSize, ...] = ()
    versions: int = 1
    variant: Variant = V3
    environment: frozenset[Drift] = frozenset()
    max_retries: int = 2
    max_in_flight: int = 2
    max_requests: int = 4
    max_items: int = 2
    front_ends: int = 1
    engines: int = 1
    duplicates: bool = False
    _size_table: dict[Content, ItemSize] = field(
        init=False, repr=False, compare=False, hash=False, default_factory=dict
    )

    _derived: dict[str, object] = field(
        init=False, repr=False, compare=False, hash=False, default_factory=dict
    )

    def __reduce__(self) -> tuple[type[Config], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __post_init__(self) -> None:
        _validate(self)
        for item in self.sizes:
            self._size_table[item.content] = item

    def derived(self, key: str, compute: Callable[[Config], _T]) -> _T:
        """`compute(self)`, computed once per configuration object: tables that depend on the
        configuration alone (which actions exist at all, which requests are well formed),
        which every step would otherwise rebuild. `key` names the table; each key must
        always be used with the same `compute`."""
        if key not in self._derived:
            self._derived[key] = compute(self)
        return cast(_T, self._derived[key])

    def enables(self, drift: Drift) -> bool:
        return drift in self.environment

    def contents(self) -> tuple[Content, ...]:
        """Every content a client may send, in a fixed order."""
        return tuple(Content(i, v) for i in self.identities for v in range(self.versions))

    def shadow_bytes(self, content: Content) -> int:
        item = self._size_table.get(content)
        return 1 if item is None else item.shadow_bytes

    def receiver_bytes(self, content: Content) -> int:
        item = self._size_table.get(content)
        return 1 if item is None else item.receiver_bytes

    def fits_budget(self, content: Content) -> bool:
        """True when the content fits the budget on P0's accounting."""
        return self.shadow_bytes(content) <= self.budget


def _validate(config: Config) -> None:
    _require(bool(config.identities), "identities is empty; give at least one identity")
    _require(
        len(set(config.identities)) == len(config.identities),
        f"identities {config.identities!r} repeat a name; list each identity once",
    )
    _require(
        type(config.budget) is int and config.budget > 0,
        f"budget must be a positive int, got {config.budget!r}",
    )
    for name in ("max_retries", "max_in_flight", "max_requests", "max_items", "versions"):
        value = getattr(config, name)
        minimum = 0 if name == "max_retries" else 1
        _require(
            type(value) is int and value >= minimum,
            f"{name} must be an int >= {minimum}, got {value!r}",
        )
    _require(
        type(config.duplicates) is bool,
        f"duplicates must be True or False, got {config.duplicates!r}",
    )
    _require(
        config.versions == 1 or config.enables(Drift.D7),
        f"versions={config.versions} reuses identities for new content; enable D7 or set "
        "versions=1",
    )
    _require(
        config.front_ends in (1, 2) and (config.front_ends == 1 or config.enables(Drift.D5)),
        f"front_ends={config.front_ends}: two front ends need D5 enabled; at most 2 supported",
    )
    _require(
        config.engines in (1, 2) and (config.engines == 1 or config.enables(Drift.D5)),
        f"engines={config.engines}: engines behind a router need D5 enabled; at most 2 "
        "supported",
    )
    _require(
        config.front_ends == 1 or config.engines == 1,
        f"front_ends={config.front_ends} with engines={config.engines}: D5's two halves are "
        "separate configurations; set front_ends=1 (router) or engines=1 (shared engine)",
    )
    _validate_sizes(config)


def _validate_sizes(config: Config) -> None:
    seen: set[Content] = set()
    for item in config.sizes:
        content = item.content
        _require(content not in seen, f"sizes lists {content!r} twice; list each content once")
        seen.add(content)
        _require(
            content.identity in config.identities and 0 <= content.version < config.versions,
            f"sizes names {content!r}, which is not one of the configuration's contents",
        )
        for side in ("shadow_bytes", "receiver_bytes"):
            value = getattr(item, side)
            _require(type(value) is int and value > 0, f"{side} of {content!r} must be > 0")
        _require(
            item.shadow_bytes == item.receiver_bytes or config.enables(Drift.D9),
            f"{content!r} has shadow_bytes={item.shadow_bytes} and receiver_bytes="
            f"{item.receiver_bytes}; unequal sizes are size skew: enable D9 or make them equal",
        )
        largest = max(item.shadow_bytes, item.receiver_bytes)
        one_side_fits = min(item.shadow_bytes, item.receiver_bytes) <= config.budget
        _require(
            largest <= config.budget
            or config.enables(Drift.D11)
            or (config.enables(Drift.D9) and one_side_fits),
            f"{content!r} takes {largest} bytes, over the budget {config.budget}; "
            "enable D11 (over the budget on both sides), D9 (on one side only) or shrink "
            "the item",
        )


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidConfiguration(message)
