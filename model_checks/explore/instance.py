"""The small instance the explorer decides exhaustively, per variant and environment.

A restriction of the Hypothesis and Z3 instance (`model_checks.kernel.instance.config_for`), cut
down by the one builder (`explore_cut`, a `spec.instances.Cut`; a shape is the part of it the
profiles vary): the same budget, sizes, contents, front ends and retries, with fewer
identities, requests and items, so that every matrix cell's graph is complete within the CI
budget. Identities a and b (and c where the matrix needs it: D8's three-item request, D11's
item over the budget), at most 3 requests of which 2 unfinished, one item per request (two
under D6, whose updates interleave item by item; three under D8, whose request must exceed
the budget), 2 retries. Because it is
a restriction, every trace of this instance is a trace of the matrix's instance (a test
replays each explorer counterexample there), so a counterexample here is one there; a proof
here is for this instance only, and says so (`describe`). How a counterexample is replayed
on either instance, for the cross-check of the explorer's verdicts with the others':
`LRU_REPLAY`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from model_checks.kernel import itf
from model_checks.kernel.instance import MATRIX, config_for, matrix_drift
from model_checks.kernel.trace_file import actions_of, config_from_json
from spec import Action, Config, TraceError, Variant, by_id, needs_of, run, variant_named
from spec.instances import Cut

MAX_REQUESTS = 3
MAX_IN_FLIGHT = 2


@dataclass(frozen=True)
class Shape:
    """How far an instance is cut down from the matrix's: at most this many requests, and
    (where set) at most this many items per request."""

    max_requests: int
    max_items: int | None = None
    max_identities: int | None = None


CI_SHAPES = (Shape(2), Shape(2, 2), Shape(2, 1), Shape(2, 1, 1))
"""The CI profile's instances, largest first: a property is decided on the first that decides
it (a counterexample, or a complete graph), and its record names that instance. The last, one
identity (a, with D7's two contents, D5's two front ends, clears, restarts and retries), is for
the largest environments (eight sources and more), whose graphs at two identities exceed the
limit."""
NIGHTLY_SHAPES = (Shape(3), Shape(3, 2), Shape(2), Shape(2, 2), Shape(2, 1), Shape(2, 1, 1))
LARGE_ENVIRONMENT = 8
"""Environments of at least this many drift sources start, in the CI profile, at one item per
request (`shapes_for`)."""
CI_LARGE_SHAPES = (Shape(2, 1), Shape(2, 1, 1))
"""The CI profile's instances for the largest environments. Measured (every cell of
D3+D4+D5+D7+D8+D9+D10+D11 and of every source, V0-V3): the state limit cut `Shape(2)` and
`Shape(2, 2)` before any counterexample (all 28 counterexamples came from `Shape(2, 1)`, the rest
was decided on `Shape(2, 1, 1)`), so trying them first only spent 60,000 states per cell."""


def shapes_for(environment: tuple[str, ...], shapes: tuple[Shape, ...],
               large: tuple[Shape, ...]) -> tuple[Shape, ...]:
    """The instances to try for one environment: `large` for the largest environments,
    `shapes` otherwise (a function of the query only, never of the machine)."""
    return large if len(environment) >= LARGE_ENVIRONMENT else shapes


def explore_cut(env: tuple[str, ...], shape: Shape, *, identities: int | None = None,
                max_in_flight: int | None = None, retries: int | None = None) -> Cut:
    """What the explorer trims from the matrix's instance for one environment (drift ids)
    and shape: the matrix's first `shape.max_identities` (else `identities`) identities, by
    default a and b, and c where a source needs it; the shape's requests; `max_in_flight`
    unfinished requests; the items per request the environment needs (`spec.Drift.needs`),
    at most the shape's; `retries` where given."""
    needs = needs_of(matrix_drift(env))
    # c only where a source needs it (D8's third identity, D11's oversized item, which the
    # matrix makes c): D9's c, cached by P0 only, is left out with it unless asked for.
    keep_c = needs.extra_identity or needs.oversized
    default = len(MATRIX.identities) if keep_c else 2
    return Cut(identities=shape.max_identities or identities or default,
               max_requests=shape.max_requests,
               max_in_flight=MAX_IN_FLIGHT if max_in_flight is None else max_in_flight,
               max_items=min(needs.items, shape.max_items or needs.items), retries=retries)


def explore_config(
    variant: Variant,
    env: tuple[str, ...],
    *,
    max_requests: int = MAX_REQUESTS,
    max_in_flight: int = MAX_IN_FLIGHT,
    max_items: int | None = None,
    max_identities: int | None = None,
) -> Config:
    """The explorer's configuration for one variant and environment (drift ids): the
    matrix's instance cut down (`explore_cut` of the shape these bounds make), never
    resized: each identity kept is at the matrix's sizes (D9's c, cached by P0 only, stays
    1/3 B when `max_identities` brings it back)."""
    shape = Shape(max_requests, max_items, max_identities)
    return config_for(variant, env, cut=explore_cut(env, shape, max_in_flight=max_in_flight))


def describe(config: Config) -> str:
    """The instance in one line, as every verdict record quotes it."""
    sizes = ", ".join(
        f"{s.content.identity}{'@' + str(s.content.version) if s.content.version else ''}"
        f"={s.shadow_bytes}/{s.receiver_bytes}B"
        for s in config.sizes
    )
    return (
        f"identities {','.join(config.identities)}; budget {config.budget}; "
        f"{config.max_requests} requests, {config.max_in_flight} unfinished, "
        f"{config.max_items} item(s) each, {config.max_retries} retries; "
        f"{config.front_ends} front end(s); "
        + (f"{config.engines} engines behind a router; " if config.engines > 1 else "")
        + f"{config.versions} content(s) per identity"
        + (f"; sizes P0/P1 {sizes}" if sizes else "")
        + ("; an identity may repeat in a request" if config.duplicates else "")
    )


@functools.lru_cache(maxsize=4096)
def _trace_actions(path: str) -> tuple[Action, ...] | None:
    """The actions of a trace file (cached: one file is compared with many records)."""
    try:
        return tuple(actions_of(itf.read_trace(Path(path))))
    except (ValueError, KeyError, TypeError):
        return None


def _breaks(config: Config, actions: Sequence[Action], prop_id: str) -> bool:
    try:
        trace = run(config, actions)
    except TraceError:
        return False  # not a trace of this instance
    return by_id(prop_id).check_trace(trace) is not None


@dataclass(frozen=True)
class LruReplay:
    """The LRU design's counterexamples replayed on the spec (`agreement.Replay`): a trace
    file's actions run on an explorer's instance (its configuration's JSON) or on the
    matrix's instance of an environment (`config_for`), the property checked by the
    registry."""

    def actions(self, path: str) -> tuple[Action, ...] | None:
        return _trace_actions(path)

    def breaks(self, instance: Mapping[str, Any], actions: Sequence[Action], prop: str
               ) -> bool:
        return _breaks(config_from_json(instance), actions, prop)

    def breaks_matrix(self, variant: str, environment: tuple[str, ...],
                      actions: Sequence[Action], prop: str) -> bool:
        return _breaks(config_for(variant_named(variant), environment), actions, prop)


LRU_REPLAY = LruReplay()
"""The LRU design's replay, as the explorer's cross-check reads it."""
