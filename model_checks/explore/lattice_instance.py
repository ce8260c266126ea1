"""The drift lattice's instance family: one configuration per environment and rung, monotone
in both.

Lemma (monotonicity, `tests/explore/test_lattice.py`): for environments E, a drift source d
and rungs r <= r' (`Rung.covers`), every action sequence that runs on `lattice_config(E, r)`
runs on `lattice_config(E | {d}, r)` and on `lattice_config(E, r')`, through states that are
`embed`ded images of the smaller run's states, and every property's check gives the same
verdict at every step on both runs. Hence a property broken under (E, r) is broken under every
superset of E at every rung above r, and one that holds under (E, r) (no reachable violation)
holds under every subset of E at every rung below r.

Why it holds: the spec consults the environment only in guards (a drift action is enabled
only with its source, P1 takes a non-oldest message only under D1, a request over the budget
is admitted only under D8), so adding d only enables more; and every configuration element a
drift source needs is something that exists only with it, never a change to what exists
without it:

- D5 adds front end 1 (an extra, empty shadow: `embed` appends it; nothing touches it
  unless a request names front end 1, which no run of the smaller instance does);
- D7 adds content version 1 of each identity (new contents): every lettered identity's second
  content (`a@1`, `b@1`, ..., and D8's extra identity's) takes the whole budget
  (`Rung.reused_bytes`, default `REUSED_BYTES`), so a reused identity names content of
  another size; the lettered identities stay interchangeable (symmetry reduction applies);
- D8 adds one more 1-byte identity and a third item per request, so a request can exceed
  the 2-byte budget;
- D6 adds nothing to the instance: every rung's requests already carry `Rung.max_items`
  items (two at the base rung) in every environment, so its updates interleave item by item;
- D9 adds identity `skewed`, which P0 sizes at 1 byte and P1 at 3 (over the budget on P1's
  side only: P0 records it, P1 skips it);
- D11 adds identity `oversized`, 3 bytes on both sides (cached by neither side).
  With D7 their second contents (`skewed@1`, `oversized@1`) are 1 byte on both sides, like
  every content the sizes do not list: identity reuse then also changes an item's size, a
  behaviour the family keeps (`describe_family` says so, read off the configuration).

A rung's bounds (requests, unfinished requests, retries, items per request) appear in the spec
only as upper bounds in guards, and its base identities are 1-byte names a, b, c, ... (a rung
with more names adds new ones, never resizes one; D8's extra identity is the next name, which a
larger rung may hold as a base identity: it is 1 byte either way). So raising any bound of a
rung only enables more: a run of rung r is a run of every rung covering it, through the same
states.

The per-cell explorer instance (`instance.explore_config`, a restriction of the matrix's
`config_for`) is not monotone in the environment: D9 skews the existing identity b and D8 and
D11 both add c at different sizes, so a run using b (or c) under E is not a run under E plus
D9 (or D11); the lemma's test shows that its check fails on that family. That is why the
lattice states its own family rather than cutting the matrix's instance down; it states it as
data for the one builder (`lattice_family`, a `spec.instances.Family`, with the matrix's
budget and, by default, its unfinished requests, retries and items per request:
`instance.MATRIX`).

The LRU design's lattice (`lattice_lru.LRU_LATTICE`) climbs this family's rungs.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from dataclasses import dataclass, replace

from model_checks.kernel.instance import MATRIX
from spec import Config, Content, State, Variant, environment
from spec import drift_order as drift_order
from spec.instances import Family, Grown, Sized

SKEWED_BYTES = (1, 3)
"""D9's own identity `skewed` (version 0): P0 records 1 byte, P1 sizes 3 bytes, over the budget:
P1 skips it."""
OVERSIZED_BYTES = (3, 3)
"""D11's own identity `oversized` (version 0): 3 bytes of the 2-byte budget on both sides."""
SKEWED, OVERSIZED = "skewed", "oversized"
BUDGET = MATRIX.budget
REUSED_BYTES = BUDGET
"""D7's second content of every lettered identity (`a@1`, `b@1`, ...): the whole budget on both
sides, so a reused identity names content of another size than the content it named before."""


@dataclass(frozen=True)
class Rung:
    """One rung of the instance ladder: the bounds shared by every environment of one lattice
    exploration. `identities` base identities (a, b, c, ...) of 1 byte each: with 3 or more
    in the 2-byte budget, the base instance can evict for capacity. `max_items` items per
    request in every environment (D8 raises it to 3); `reused_bytes`, the size of D7's second
    content of every lettered identity (`a@1`, `b@1`, ...) on both sides; `duplicates`,
    whether a request may name one identity twice (`spec.Config.duplicates`: admitting them
    only enables more requests, so a rung that admits them covers one that does not)."""

    max_requests: int = 2
    max_in_flight: int = MATRIX.max_in_flight
    max_retries: int = MATRIX.max_retries
    identities: int = 2
    max_items: int = MATRIX.max_items
    reused_bytes: int = REUSED_BYTES
    duplicates: bool = False

    def __post_init__(self) -> None:
        for name, low in (("max_requests", 1), ("max_in_flight", 1), ("max_retries", 0),
                          ("identities", 1), ("max_items", 1), ("reused_bytes", 1)):
            value = getattr(self, name)
            if type(value) is not int or value < low:
                raise ValueError(f"rung: {name} must be an int >= {low}, got {value!r}")
        if self.identities > len(string.ascii_lowercase) - 1:
            raise ValueError(f"rung: at most 25 identities, got {self.identities}")

    def covers(self, other: Rung) -> bool:
        """Every bound at least `other`'s: every run of `other` is a run of this rung."""
        return (self.max_requests >= other.max_requests
                and self.max_in_flight >= other.max_in_flight
                and self.max_retries >= other.max_retries
                and self.identities >= other.identities
                and self.max_items >= other.max_items
                and self.reused_bytes == other.reused_bytes
                and self.duplicates >= other.duplicates)

    def names(self) -> tuple[str, ...]:
        return tuple(string.ascii_lowercase[: self.identities])

    def words(self) -> str:
        """The rung in a few words: "3 requests (2 unfinished), 2 retries, identities a,b,c, 2
        items per request"."""
        items = f"{self.max_items} item{'s' if self.max_items > 1 else ''} per request"
        if self.duplicates:
            items += " (an identity may repeat)"
        return (f"{self.max_requests} requests ({min(self.max_in_flight, self.max_requests)} "
                f"unfinished), {self.max_retries} retries, identities {','.join(self.names())}, "
                f"{items}")

    def short(self) -> str:
        """The rung in the words of "holds with 2 requests, breaks with 3"."""
        return f"{self.max_requests} requests"


def ladder(base: Rung, top: Rung) -> tuple[Rung, ...]:
    """The rungs from `base` to `top`, each covering the one before: first the base, then
    the other bounds raised to `top`'s with the base's requests, then one more request per
    rung up to `top`'s. `ValueError` if `top` does not cover `base`."""
    if not top.covers(base):
        raise ValueError(f"the top rung ({top.words()}) must cover the base rung "
                         f"({base.words()}): every bound at least the base's")
    rungs = [base, replace(top, max_requests=base.max_requests)]
    rungs += [replace(top, max_requests=n)
              for n in range(base.max_requests + 1, top.max_requests + 1)]
    return tuple(dict.fromkeys(rungs))


def lattice_family(shape: Rung) -> Family:
    """The family at one rung, as data (`spec.instances.Family`): the rung's lettered
    identities and bounds (unfinished requests at most the requests), D8's next letter,
    D9's `skewed` and D11's `oversized` identities at their sizes, and D7's second content
    of every lettered identity at `shape.reused_bytes` (1 byte, like every unlisted content,
    when that is 1)."""
    extra = string.ascii_lowercase[shape.identities]
    reused = () if shape.reused_bytes == 1 else tuple(
        Sized(Content(name, 1), shape.reused_bytes, shape.reused_bytes)
        for name in (*shape.names(), extra))
    return Family(
        identities=shape.names(), budget=BUDGET, max_requests=shape.max_requests,
        max_in_flight=min(shape.max_in_flight, shape.max_requests),
        max_retries=shape.max_retries, max_items=shape.max_items,
        grown=(Grown(extra, "extra_identity"), Grown(SKEWED, "skewed_sizes"),
               Grown(OVERSIZED, "oversized")),
        sizes=(*reused, Sized(Content(SKEWED), *SKEWED_BYTES, need="skewed_sizes"),
               Sized(Content(OVERSIZED), *OVERSIZED_BYTES, need="oversized")),
        duplicates=shape.duplicates,
    )


def lattice_config(variant: Variant, env: Iterable[str], shape: Rung) -> Config:
    """The lattice's configuration for one variant, environment (drift ids) and rung: the
    rung's family (`lattice_family`) realised by the one builder (`spec.instances`), with
    the identities, sizes and bounds the module's docstring lists."""
    return lattice_family(shape).config(variant, environment(*env))


def embed(state: State, config: Config) -> State:
    """A state of a smaller instance as a state of `config`: front ends `config` has that the
    state lacks get an empty shadow (the only difference a larger environment makes to a
    state's shape)."""
    missing = config.front_ends - len(state.shadows)
    if missing <= 0:
        return state
    return replace(state, shadows=(*state.shadows, *((),) * missing))


def describe_sizes(config: Config) -> str:
    """Every content's size on each side, from the configuration itself: "a, b, c: 1 byte;
    skewed, skewed@1: P0 1 byte, P1 3"."""
    groups: dict[tuple[int, int], list[str]] = {}
    for content in config.contents():
        name = content.identity + (f"@{content.version}" if content.version else "")
        sides = (config.shadow_bytes(content), config.receiver_bytes(content))
        groups.setdefault(sides, []).append(name)
    parts = []
    for (p0, p1), names in groups.items():
        size = f"{p0} byte{'s' if p0 > 1 else ''}" if p0 == p1 else f"P0 {p0} byte, P1 {p1}"
        parts.append(f"{', '.join(names)}: {size}")
    return "; ".join(parts)


def eviction(shape: Rung) -> str:
    """Whether a run with no drift can evict for capacity at this rung, and why."""
    met = min(shape.identities, shape.max_requests * shape.max_items)
    if met > BUDGET:
        return (f"with no drift, {met} one-byte identities meet in the {BUDGET}-byte budget: "
                "the rung can evict for capacity")
    return (f"with no drift, {shape.max_requests} requests of {shape.max_items} item(s) meet "
            f"at most {met} identities: the rung cannot evict for capacity without D8, D9 or "
            f"D7's second contents; with {BUDGET + 1} identities met it can")


def describe_family(shape: Rung, variant: Variant | None = None,
                    sources: Iterable[str] = ()) -> str:
    """The instance family at one rung in one line, generated from the configurations: the
    base (no drift) and, with `sources`, what each adds (read off `lattice_config`)."""
    from spec import V1

    v = variant or V1
    base = lattice_config(v, (), shape)
    text = (f"budget {BUDGET}; {shape.words()}; sizes "
            f"{describe_sizes(base)} ({eviction(shape)})")
    adds = []
    for source in drift_order(sources):
        config = lattice_config(v, (source,), shape)
        extra = [i for i in config.identities if i not in base.identities]
        what = []
        if config.front_ends > base.front_ends:
            what.append("a second front end")
        if config.max_items > base.max_items:
            what.append(f"{config.max_items} items per request")
        if config.versions > base.versions:
            what.append(f"{config.versions} contents per identity")
        if extra:
            only = replace(config, versions=1, environment=config.environment)
            sized = [describe_sizes(replace(only, identities=(i,), sizes=tuple(
                s for s in only.sizes if s.content.identity == i))) for i in extra]
            what.append("identity " + "; ".join(sized))
        if what:
            adds.append(f"{source} {', '.join(what)}")
    if adds:
        text += "; each drift source adds only what exists with it: " + "; ".join(adds)
    if "D7" in set(sources):
        skews = tuple(d for d in ("D9", "D11") if d in set(sources))
        both = lattice_config(v, ("D7", *skews), shape)
        text += (f"; with D7{''.join(' and ' + d for d in skews)}, the sizes per content are "
                 f"{describe_sizes(both)}")
    return text
