"""The checkers' entry to the LRU design's instance builder (`spec.instances`): the matrix's
family, and `config_for`, the configuration any checker's family gives for a matrix
environment. Per design by nature: the instance shapes of the LRU design's expected matrix.

As TLC keeps a model's constants in its configuration, not in the specification, the spec's
`Config` says what an instance may be and a family (`spec.instances.Family`) says which
instances a checker searches. `MATRIX_FAMILY` is the expected matrix's (the one Hypothesis
and the pair witnesses search, `config_for`, and whose instance with no drift, `MATRIX`,
gives Z3's bounds their defaults); the explorer cuts it down (`spec.instances.Cut`:
`explore.instance`), and the drift lattice states its own family beside itself
(`explore.lattice_instance`), as do the concurrent histories (`history.concurrent`) and the
LRU design (`spec.designs.lru_design`). `config_for` reads a matrix environment (drift
ids, `ROUTER` for D5's router half) into the builder's terms.
"""

from __future__ import annotations

from dataclasses import replace

from spec import Config, Content, Drift, ItemSize, Variant
from spec.drift import DRIFT_IDS, ROUTER, Environment
from spec.instances import Cut, Family, Instance, Sized, realise

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


def _sized(size: ItemSize, need: str = "", unless: str = "") -> Sized:
    return Sized(size.content, size.shadow_bytes, size.receiver_bytes, need, unless)


MATRIX_FAMILY = Family(
    identities=("a", "b", "c"), budget=2, max_requests=4, max_in_flight=2, max_retries=2,
    max_items=2,
    sizes=(_sized(SKEWED, "skewed_sizes"), _sized(ONE_SIDED, "skewed_sizes", "oversized"),
           _sized(OVERSIZED, "oversized"), _sized(REUSED)),
)
"""The matrix's family: identities a, b, c of 1 byte, a 2-byte budget, at most 4 requests, 2
of them unfinished at once, 2 items each (more where the drift needs them), 2 retries; b
skewed and c cached by P0 only under D9 (c is over the budget on both sides instead under
D11), b's second content of 2 bytes under D7."""

UNCUT = Cut()
"""The cut that trims nothing."""

MATRIX = realise(MATRIX_FAMILY, frozenset())
"""The matrix's instance with no drift."""

IN_FLIGHT = MATRIX.max_in_flight
"""Unfinished requests at once in the matrix's instance."""
WIDER_IN_FLIGHT = 3
"""The second instance size L3 and L4 are judged at (`matrix.Cell.wider`)."""


def matrix_drift(env: tuple[str, ...]) -> frozenset[Drift]:
    """The drift sources of a matrix environment (drift ids; `ROUTER` is D5)."""
    return Environment.of(env).within((*DRIFT_IDS, ROUTER)).drift


def matrix_instance(env: tuple[str, ...], max_in_flight: int = IN_FLIGHT, *,
                    family: Family | None = None) -> Instance:
    """The instance of `family` (default: the matrix's, `MATRIX_FAMILY`, at `max_in_flight`
    unfinished requests) for a matrix environment, realised by the one builder: what each
    drift source needs to exist at all (`spec.Drift.needs`). `ROUTER` in the environment is
    D5's other half: one front end, two engines behind a router."""
    if family is None:
        family = replace(MATRIX_FAMILY, max_in_flight=max_in_flight)
    return realise(family, matrix_drift(env), routed=ROUTER in env)


def config_for(variant: Variant, env: tuple[str, ...], max_in_flight: int = IN_FLIGHT, *,
               family: Family | None = None, cut: Cut = UNCUT) -> Config:
    """Every checker's configuration for `variant` in a matrix environment (drift ids,
    `ROUTER` for D5's router half): `matrix_instance` cut down by `cut`. The matrix's own
    (`WIDER_IN_FLIGHT`: the wider instance), or another checker's `family`."""
    return matrix_instance(env, max_in_flight, family=family).cut(cut).config(
        variant, matrix_drift(env))


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
