"""An independent statement, written out per checker, of the instances the checkers search:
the configurations (order of identities and sizes included) that every committed verdict and
every derandomized Hypothesis draw was computed on. The equivalence tests hold the one
builder (`spec.instances`) and each checker's family to it. Self-contained: only the spec is
imported."""

from __future__ import annotations

import string
from collections.abc import Iterable

from spec import Config, Content, Drift, ItemSize, Variant, environment, needs_of

ROUTER = "D5-router"
SKEWED = ItemSize(Content("b"), 1, 2)
ONE_SIDED = ItemSize(Content("c"), 1, 3)
OVERSIZED = ItemSize(Content("c"), 3, 3)
REUSED = ItemSize(Content("b", 1), 2, 2)


def matrix_drift(env: tuple[str, ...]) -> frozenset[Drift]:
    router = ROUTER in env
    return environment(*(d for d in env if d != ROUTER), *(("D5",) if router else ()))


def config_for(variant: Variant, env: tuple[str, ...], max_in_flight: int = 2) -> Config:
    """The matrix's configuration (Hypothesis, Z3, the pair witnesses)."""
    router = ROUTER in env
    needs = needs_of(matrix_drift(env))
    sizes = tuple(
        size for size, present in (
            (SKEWED, needs.skewed_sizes),
            (ONE_SIDED, needs.skewed_sizes and not needs.oversized),
            (OVERSIZED, needs.oversized),
        ) if present
    ) + ((REUSED,) if needs.versions > 1 else ())
    return Config(
        identities=("a", "b", "c"), budget=2, sizes=sizes, versions=needs.versions,
        variant=variant, environment=matrix_drift(env), max_retries=2,
        max_in_flight=max_in_flight, max_requests=4, max_items=max(2, needs.items),
        front_ends=1 if router else needs.front_ends, engines=2 if router else 1,
    )


def explore_config(variant: Variant, env: tuple[str, ...], *, max_requests: int = 3,
                   max_in_flight: int = 2, max_items: int | None = None,
                   max_identities: int | None = None) -> Config:
    """The explorer's cut of the matrix's configuration."""
    matrix = config_for(variant, env)
    needs = needs_of(matrix_drift(env))
    keep_c = needs.extra_identity or needs.oversized
    count = max_identities or (3 if keep_c else 2)
    kept = matrix.identities[:count]
    return Config(
        identities=kept, budget=matrix.budget,
        sizes=tuple(s for s in matrix.sizes if s.content.identity in kept),
        versions=matrix.versions, variant=variant, environment=matrix.environment,
        max_retries=matrix.max_retries,
        max_in_flight=min(max_in_flight, matrix.max_in_flight),
        max_requests=min(max_requests, matrix.max_requests),
        max_items=min(min(needs.items, max_items or needs.items), matrix.max_items),
        front_ends=matrix.front_ends, engines=matrix.engines,
    )


def lattice_config(variant: Variant, env: Iterable[str], *, max_requests: int = 2,
                   max_in_flight: int = 2, max_retries: int = 2, identities: int = 2,
                   max_items: int = 2, reused_bytes: int = 2) -> Config:
    """The drift lattice's family at one rung (the rung's fields as keywords)."""
    drift = environment(*env)
    needs = needs_of(drift)
    names = list(string.ascii_lowercase[:identities])
    sizes: list[ItemSize] = []
    if needs.extra_identity:
        names.append(string.ascii_lowercase[identities])
    if needs.versions > 1 and reused_bytes != 1:
        sizes += [ItemSize(Content(name, 1), reused_bytes, reused_bytes) for name in names]
    for needed, name, (p0, p1) in ((needs.skewed_sizes, "skewed", (1, 3)),
                                   (needs.oversized, "oversized", (3, 3))):
        if needed:
            names.append(name)
            sizes.append(ItemSize(Content(name), p0, p1))
    return Config(
        identities=tuple(names), budget=2, sizes=tuple(sizes), versions=needs.versions,
        variant=variant, environment=drift, max_retries=max_retries,
        max_in_flight=min(max_in_flight, max_requests), max_requests=max_requests,
        max_items=max(max_items, needs.items), front_ends=needs.front_ends,
    )


def history_config(variant: Variant, env: frozenset[Drift]) -> Config:
    """The concurrent-history workload's configuration (D1 joins the environment)."""
    sizes = []
    if Drift.D8 in env:
        sizes += [ItemSize(Content(i, v), 2, 2) for i in "bc" for v in range(2)]
    if Drift.D11 in env:
        sizes += [ItemSize(Content("d", v), 4, 4) for v in range(2)]
    versions = 2 if Drift.D7 in env else 1
    return Config(identities=("a", "b", "c", "d"), budget=3,
                  sizes=tuple(s for s in sizes if s.content.version < versions),
                  versions=versions, variant=variant, environment=env | {Drift.D1},
                  front_ends=2 if Drift.D5 in env else 1)


def lru_design_config(variant: Variant, env: frozenset[Drift]) -> Config:
    """The LRU design's generic instance (rung 0)."""
    needs = needs_of(env)
    identities = ("a", "b", "c") if needs.extra_identity else ("a", "b")
    sizes: list[ItemSize] = []
    if needs.skewed_sizes:
        sizes.append(ItemSize(Content("a"), 1, 2))
    if needs.oversized:
        sizes.append(ItemSize(Content("b"), 3, 3))
    return Config(identities=identities, budget=2, sizes=tuple(sizes),
                  versions=needs.versions, variant=variant, environment=env,
                  max_retries=1, max_in_flight=2, max_requests=2,
                  max_items=min(needs.items, 2), front_ends=needs.front_ends)
