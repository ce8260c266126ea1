"""The instance vocabulary: what a checked instance is, stated once, apart from the spec.

As TLC keeps a model's constants in its configuration, not in the specification, the spec's
`Config` says what an instance may be and this module says which instances the checkers
search. An `Instance` names every constant once: identities, contents per identity, sizes
per side, budget, requests, unfinished requests, retries, items per request, front ends and
engines. `matrix_instance` is the expected matrix's instance for an environment (the one
Hypothesis and the pair witnesses search); every other checker cuts it down (`Instance.cut`:
the explorer's shapes) or states its own family in the same words (the drift lattice's
rungs, `explore.lattice_instance`), and Z3's bounds take their defaults from `MATRIX`.
`config_for` is the matrix instance made a configuration of one variant.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from model_checks.environment_arg import ROUTER
from spec import Config, Content, Drift, ItemSize, Variant, drift_order, environment, needs_of


@dataclass(frozen=True)
class Instance:
    """The constants of one instance, without a variant or environment (`config` adds
    them). `sizes` lists the contents whose size is not 1 byte on both sides."""

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

    def config(self, variant: Variant, drift: frozenset[Drift]) -> Config:
        """This instance as the spec's configuration for `variant` under `drift` (the spec
        validates it: an instance a drift source does not allow is an error naming it)."""
        return Config(
            identities=self.identities, budget=self.budget, sizes=self.sizes,
            versions=self.versions, variant=variant, environment=drift,
            max_retries=self.max_retries, max_in_flight=self.max_in_flight,
            max_requests=self.max_requests, max_items=self.max_items,
            front_ends=self.front_ends, engines=self.engines,
        )

    def cut(self, *, identities: int | None = None, max_requests: int | None = None,
            max_in_flight: int | None = None, max_items: int | None = None,
            max_retries: int | None = None) -> Instance:
        """This instance cut down, never resized: its first `identities` identities, each at
        its sizes here, and every bound at most this instance's (a larger bound asked for is
        this instance's). A bound below 1 (retries: below 0) is a `ValueError`."""
        asked = dict(identities=identities, max_requests=max_requests,
                     max_in_flight=max_in_flight, max_items=max_items, max_retries=max_retries)
        for name, value in asked.items():
            low = 0 if name == "max_retries" else 1
            if value is not None and value < low:
                raise ValueError(f"cut: {name} must be at least {low}, got {value}")
        kept = self.identities[: identities or len(self.identities)]
        return replace(
            self, identities=kept,
            sizes=tuple(s for s in self.sizes if s.content.identity in kept),
            **{name: min(value, getattr(self, name)) for name, value in asked.items()
               if value is not None and name != "identities"},
        )


MATRIX = Instance(identities=("a", "b", "c"), budget=2, max_requests=4, max_in_flight=2,
                  max_retries=2, max_items=2)
"""The matrix's base instance, with no drift: identities a, b, c of 1 byte, a 2-byte budget,
at most 4 requests, 2 of them unfinished at once, 2 items each, 2 retries."""

IN_FLIGHT = MATRIX.max_in_flight
"""Unfinished requests at once in the matrix's instance."""
WIDER_IN_FLIGHT = 3
"""The second instance size L3 and L4 are judged at (`matrix.Cell.wider`)."""

SKEWED = ItemSize(Content("b"), 1, 2)
"""Under D9: P1 sizes b at 2 bytes, P0 at 1 (P1 evicts where P0 does not)."""
ONE_SIDED = ItemSize(Content("c"), 1, 3)
"""Under D9 without D11: P0 sizes c at 1 byte and caches it, P1 at 3, over the 2-byte budget,
and skips it (one side caches, the other skips)."""
OVERSIZED = ItemSize(Content("c"), 3, 3)
"""Under D11: c takes 3 bytes of the 2-byte budget on both sides."""
REUSED = ItemSize(Content("b", 1), 2, 2)
"""Under D7: b's second content takes the whole 2-byte budget on both sides (a client-supplied
uuid names new content of another size): recording it evicts everything else. (Not c's: D11
makes c@0 oversized, and D8's requests need a third small content, c@1.)"""


def matrix_drift(env: tuple[str, ...]) -> frozenset[Drift]:
    """The drift sources of a matrix environment (drift ids; `ROUTER` is D5)."""
    router = ROUTER in env
    return environment(*(d for d in env if d != ROUTER), *((Drift.D5.value,) if router else ()))


def matrix_instance(env: tuple[str, ...], max_in_flight: int = IN_FLIGHT) -> Instance:
    """The matrix's instance for an environment: `MATRIX` with what each drift source needs to
    exist at all (`spec.Drift.needs`): two front ends (D5), a second content per identity
    (D7; b's of 2 bytes), three items per request (D8), b skewed and c cached by P0 only
    (D9; c is over the budget on both sides instead under D11), and `max_in_flight`
    unfinished requests. `ROUTER` in the environment is D5's other half: one front end, two
    engines behind a router."""
    router = ROUTER in env
    needs = needs_of(matrix_drift(env))
    sizes = tuple(
        size for size, present in (
            (SKEWED, needs.skewed_sizes),
            (ONE_SIDED, needs.skewed_sizes and not needs.oversized),
            (OVERSIZED, needs.oversized),
        ) if present
    ) + ((REUSED,) if needs.versions > 1 else ())
    return replace(
        MATRIX, sizes=sizes, versions=needs.versions, max_in_flight=max_in_flight,
        max_items=max(MATRIX.max_items, needs.items),
        front_ends=1 if router else needs.front_ends, engines=2 if router else 1,
    )


def config_for(variant: Variant, env: tuple[str, ...], max_in_flight: int = IN_FLIGHT) -> Config:
    """The configuration every checker's instance comes from for a cell: `matrix_instance`
    for `variant` (the wider instance with `max_in_flight` = `WIDER_IN_FLIGHT`)."""
    return matrix_instance(env, max_in_flight).config(variant, matrix_drift(env))


def environment_of(config: Config) -> tuple[str, ...]:
    """The matrix environment a configuration belongs to (the inverse of `config_for` on
    environments): drift ids in numeric order, D5 named `ROUTER` where the engines are two."""
    ids = drift_order(d.value for d in config.environment)
    return tuple(ROUTER if d == Drift.D5.value and config.engines > 1 else d for d in ids)


def instance_contains(large: tuple[str, ...], small: tuple[str, ...],
                      ignoring: frozenset[str] = frozenset()) -> bool:
    """Whether every trace of `config_for(v, small)` is a trace of `config_for(v, large)`:
    `large` enables every drift source of `small`, has at least its front ends, contents per
    identity and items per request, and sizes every content of `small`'s instance as `small`
    does. Behaviours only grow with the environment *within* such a family; where it fails
    (D11 makes c oversized, D9 skews b and c) a property a single source breaks may hold in
    the pair, and its search need not show it (`matrix.Cell.unshown`). `ignoring`:
    identities whose sizes are not compared."""
    if not set(small) <= set(large):
        return False
    big, little = (matrix_instance(env) for env in (large, small))
    return (
        big.front_ends >= little.front_ends and big.versions >= little.versions
        and big.max_items >= little.max_items
        and all(_bytes(big, c) == _bytes(little, c)
                for c in _contents(little) if c.identity not in ignoring)
    )


def _contents(instance: Instance) -> tuple[Content, ...]:
    return tuple(Content(i, v) for i in instance.identities for v in range(instance.versions))


def _bytes(instance: Instance, content: Content) -> tuple[int, int]:
    """A content's size (P0, P1) in an instance: 1 byte on both sides unless `sizes` says."""
    for size in instance.sizes:
        if size.content == content:
            return size.shadow_bytes, size.receiver_bytes
    return 1, 1
