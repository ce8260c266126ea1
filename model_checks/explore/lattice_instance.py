"""The drift lattice's instance family: one configuration per environment, monotone in it.

Lemma (monotonicity, `tests/explore/test_lattice_monotone.py`): for environments E and a
drift source d, every action sequence that runs on `lattice_config(E)` runs on
`lattice_config(E | {d})`, through states that are `embed`ded images of the smaller run's
states, and every property's check gives the same verdict at every step on both runs. Hence
a property broken under E is broken under every superset of E, and one that holds under E
(no reachable violation) holds under every subset.

Why it holds: the spec consults the environment only in guards (a drift action is enabled
only with its source, P1 takes a non-oldest message only under D1, a request over the budget
is admitted only under D8), so adding d only enables more; and every configuration element a
drift source needs is something that exists only with it, never a change to what exists
without it:

- D5 adds front end 1 (an extra, empty shadow: `embed` appends it; nothing touches it
  unless a request names front end 1, which no run of the smaller instance does);
- D7 adds content version 1 of each identity (new contents, sized 1 byte like version 0);
- D8 adds identity c (1 byte) and a third item per request, so a request can exceed the
  2-byte budget;
- D6 adds a second item per request (its updates interleave item by item);
- D9 adds identity `skewed`, which P0 sizes at 1 byte and P1 at 3 (over the budget on P1's
  side only: P0 records it, P1 skips it);
- D11 adds identity `oversized`, 3 bytes on both sides (cached by neither side).

The per-cell explorer instance (`instance.explore_config`, a restriction of the matrix's
`config_for`) is not monotone: D9 skews the existing identity b and D8 and D11 both add c
at different sizes, so a run using b (or c) under E is not a run under E plus D9 (or D11);
the lemma's test shows that its check fails on that family.

Every other parameter is fixed by the `LatticeShape` for the whole lattice: changing a
bound between environments would break the lemma.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from spec import Config, Content, ItemSize, State, Variant, environment

SKEWED = ItemSize(Content("skewed"), 1, 3)
"""D9's own identity: P0 records 1 byte, P1 sizes 3 bytes, over the budget: P1 skips it."""
OVERSIZED = ItemSize(Content("oversized"), 3, 3)
"""D11's own identity: 3 bytes of the 2-byte budget on both sides."""
BUDGET = 2


@dataclass(frozen=True)
class LatticeShape:
    """The bounds shared by every environment of one lattice run."""

    max_requests: int = 2
    max_in_flight: int = 2
    max_retries: int = 2


def drift_order(ids: Iterable[str]) -> tuple[str, ...]:
    """Drift ids, deduplicated, in numeric order (D1, D2, ..., D11)."""
    return tuple(sorted(set(ids), key=lambda d: int(d[1:])))


def lattice_config(variant: Variant, env: Iterable[str], shape: LatticeShape) -> Config:
    """The lattice's configuration for one variant and environment (drift ids)."""
    drift = set(env)
    identities = ["a", "b"]
    sizes: list[ItemSize] = []
    if "D8" in drift:
        identities.append("c")
    if "D9" in drift:
        identities.append(SKEWED.content.identity)
        sizes.append(SKEWED)
    if "D11" in drift:
        identities.append(OVERSIZED.content.identity)
        sizes.append(OVERSIZED)
    items = 3 if "D8" in drift else 2 if "D6" in drift else 1
    return Config(
        identities=tuple(identities),
        budget=BUDGET,
        sizes=tuple(sizes),
        versions=2 if "D7" in drift else 1,
        variant=variant,
        environment=environment(*drift),
        max_retries=shape.max_retries,
        max_in_flight=shape.max_in_flight,
        max_requests=shape.max_requests,
        max_items=items,
        front_ends=2 if "D5" in drift else 1,
    )


def embed(state: State, config: Config) -> State:
    """A state of a smaller instance as a state of `config`: front ends `config` has that the
    state lacks get an empty shadow (the only difference a larger environment makes to a
    state's shape)."""
    missing = config.front_ends - len(state.shadows)
    if missing <= 0:
        return state
    return replace(state, shadows=(*state.shadows, *((),) * missing))


def describe_family(shape: LatticeShape) -> str:
    """The instance family in one line, as the lattice's JSON and page quote it."""
    return (
        f"budget {BUDGET}; identities a, b (1 byte each); {shape.max_requests} requests, "
        f"{shape.max_in_flight} unfinished, {shape.max_retries} retries; 1 item per request; "
        "each drift source adds only what exists with it: D5 a second front end, D6 a second "
        "item per request, D7 a second content per identity, D8 identity c and a third item "
        "per request, D9 identity 'skewed' (P0 1 byte, P1 3), D11 identity 'oversized' "
        "(3 bytes both sides)"
    )

