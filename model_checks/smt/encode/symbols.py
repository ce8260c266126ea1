"""The symbolic state of one bounded configuration, named by time step.

`Encoding` fixes what is symbolic and what is not: K identities, R request slots (the spec's
`max_requests`), at most Q unfinished requests (`max_in_flight`), M items per request (1; 2 under
D6, D7 and D8, whose behaviours need two), one front end (two under D5), the variant and the drift
sources. The byte budget and each side's item sizes are not fixed: they are symbolic parameters
(`params`) ranging over `Bounds`, so one query covers every budget and size.

Representation (each choice mirrors a field of `spec.state.State`):
- an LRU side ("p0" front end 0's shadow, "p0f1" front end 1's, "p1" the receiver, "p1e1"
  engine 1's receiver in D5's router configuration) is, per
  identity k: `in` (an entry is present), `ghost` (a ghost slot, only under
  LruFlaw.GHOST_TOUCH), `ts` (recency: the slot with the smallest stamp is the least recent;
  `STAMPS_PER_STEP` stamps per step keep the order of several updates in one step), `size`,
  `pid` (the processing held), `ver` (that processing's content version) and `tag` (-1: none);
- request slot r: its front end, item count, retries, stage and outcome, and per item j the
  identity index, content version, whether media is attached and whether the last reply listed
  it; under D6 the attempt's work between probe and send (pid processed per item, items
  updated, their order); `nreq` requests exist;
- each request has at most one message to P1 and one reply to P0 at a time, so the channels are
  stored per request with a sequence number (`seq`) giving their order, and the engine the
  message was routed to (`eng`, constant 0 with one engine); per message item the
  payload pid (-1: a reference), the placeholders' pid, their content version and the tag; per
  reply item whether it is reported missed;
- processings: `nproc`, the next pid. A processing's content is not looked up by pid: every slot
  that holds a pid also holds that processing's version, and its identity is the slot's own (an
  entry's key, a message's request item). The spec builds every slot that way; the cross-check
  (`crosscheck.matches`) confirms it on every spec state it maps, and arrays from pid to content
  made S1 queries an order of magnitude slower;
- the last delivery to the model (none / served / missed) with its rid and, per item, the
  tensor and placeholder pids and versions and the version the client sent; the fault; D4's
  pending reset; a clock that stamps `ts` and `seq`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

import z3

from model_checks.kernel.instance import MATRIX, matrix_drift, matrix_instance
from spec import Drift, Needs, Variant, needs_of
from spec.drift import Environment

NONE_PID = -1
"""The pid stored where the spec has None (a reference's payload, an untagged entry's tag)."""


class StageCode(enum.IntEnum):
    SUBMITTED = 0
    IN_FLIGHT = 1
    DONE = 2
    PROCESSED = 3  # D6 only
    UPDATING = 4  # D6 with two items only


class OutcomeCode(enum.IntEnum):
    NONE = 0
    SUCCESS = 1
    MISS = 2
    CLIENT_ERROR = 3
    REJECTED = 4
    P0_ASSERT = 5  # P0's assertion failed this request (V0-V2 under D6, D8)


class FaultCode(enum.IntEnum):
    NONE = 0
    ENGINE_CRASH = 1
    HANG = 3


class DeliveryCode(enum.IntEnum):
    NONE = 0
    SERVED = 1
    MISSED = 2


NOT_ENCODED: Mapping[Drift, str] = {}
"""Drift sources the SMT encoding leaves out, and why (none today: D5 is two shadows, D6 the
split P0Process/P0UpdateItem steps, D8 two items per request). A query for an environment that
contains a left-out source runs on the rest of the environment: a counterexample found is still
one (every guard of the spec is monotone in the environment), but 'no counterexample' is
reported as unknown."""


@dataclass(frozen=True, slots=True)
class Bounds:
    """The finite instance: identities, request slots, concurrency and retries (by default the
    matrix's, `model_checks.kernel.instance.MATRIX`), items per request cut down to `max_items`
    (`max_items_under_d8` where the drift needs two: D6, D7, D8, or where duplicates are
    admitted), and the ranges of the symbolic budget and sizes (which cover the matrix's
    budget and sizes)."""

    identities: tuple[str, ...] = MATRIX.identities
    max_requests: int = MATRIX.max_requests
    max_in_flight: int = MATRIX.max_in_flight
    max_retries: int = MATRIX.max_retries
    budget_range: tuple[int, int] = (1, 4)
    size_range: tuple[int, int] = (1, 3)
    max_items: int = 1
    max_items_under_d8: int = 2
    duplicates: bool = False
    """A request may name one identity twice (`spec.Config.duplicates`): items per request
    are then `max_items_under_d8` (two), whatever the drift."""


@dataclass(frozen=True, slots=True)
class Encoding:
    """What one SMT query is about: a variant, the environment asked for, the bounds, and the
    engines behind the router (2: D5's router configuration, one front end; needs D5)."""

    variant: Variant
    environment: frozenset[Drift]
    bounds: Bounds = field(default_factory=Bounds)
    engines: int = 1

    def __post_init__(self) -> None:
        if self.engines not in (1, 2) or (self.engines == 2 and Drift.D5 not in self.environment):
            raise ValueError(f"engines={self.engines}: 1, or 2 with D5 in the environment")

    @property
    def encoded_environment(self) -> frozenset[Drift]:
        return frozenset(d for d in self.environment if d not in NOT_ENCODED)

    @property
    def left_out(self) -> frozenset[Drift]:
        return frozenset(d for d in self.environment if d in NOT_ENCODED)

    def enables(self, drift: Drift) -> bool:
        return drift in self.encoded_environment

    @property
    def needs(self) -> Needs:
        """What the encoded drift sources need in the instance (`spec.Drift.needs`)."""
        return needs_of(self.encoded_environment)

    @property
    def versions(self) -> int:
        return self.needs.versions

    @property
    def k(self) -> int:
        return len(self.bounds.identities)

    @property
    def r(self) -> int:
        return self.bounds.max_requests

    @property
    def m(self) -> int:
        """Items per request at most: two where the drift needs more than one (D6: updates
        interleaved item by item; D8: a request over the budget; `spec.Drift.needs`) or
        reuses an identity for new content (D7: the new content's own size may make a
        two-item request overflow), or where a request may name one identity twice
        (`Bounds.duplicates`), else one."""
        if self.needs.items > 1 or self.needs.versions > 1 or self.bounds.duplicates:
            return max(self.bounds.max_items, self.bounds.max_items_under_d8)
        return self.bounds.max_items

    @property
    def front_ends(self) -> int:
        """Two under D5, one in D5's router configuration (where the engines are two)."""
        return self.needs.front_ends if self.engines == 1 else 1

    @property
    def receivers(self) -> tuple[str, ...]:
        return tuple(receiver_side(e) for e in range(self.engines))

    @property
    def split(self) -> bool:
        """D6: P0's probe-and-process and its per-item updates are separate steps."""
        return self.enables(Drift.D6)

    @property
    def shadows(self) -> tuple[str, ...]:
        return tuple(shadow_side(fe) for fe in range(self.front_ends))

    @property
    def sides(self) -> tuple[str, ...]:
        return (*self.shadows, *self.receivers)

    def describe(self) -> str:
        router = ", two engines behind a router" if self.engines > 1 else ""
        return f"{self.variant.name} under {Environment.of(self.environment).text}{router}"


def shadow_side(front_end: int) -> str:
    """The LRU side of front end `front_end`'s shadow: "p0" for front end 0, "p0f1" for 1."""
    return "p0" if front_end == 0 else f"p0f{front_end}"


def encoding_for(variant: Variant, env: tuple[str, ...], bounds: Bounds | None = None) -> Encoding:
    """The encoding of a matrix environment (drift ids; `environment_arg.ROUTER` is D5's
    router configuration: D5 with one front end and two engines), its drift sources and
    engines those of the matrix's instance (`instance.matrix_instance`)."""
    return Encoding(variant, matrix_drift(env), bounds or Bounds(),
                    engines=matrix_instance(env).engines)


def receiver_side(engine: int) -> str:
    """The LRU side of engine `engine`'s receiver: "p1" for engine 0, "p1e1" for 1."""
    return "p1" if engine == 0 else f"p1e{engine}"


STAMPS_PER_STEP = 8
"""LRU recency stamps per step: one step may touch or insert several entries (up to 2M), each
needs its own stamp so that the order among them is the spec's."""


def stamp(clock: z3.ArithRef, index: int) -> z3.ArithRef:
    """The index-th recency stamp of the step taken at `clock` (index < STAMPS_PER_STEP)."""
    assert 0 <= index < STAMPS_PER_STEP
    return clock * STAMPS_PER_STEP + index


def at(name: str, t: int) -> str:
    """The solver name of state variable `name` at time step `t`: at("p1_in_k1", 3) is
    "p1_in_k1@3"."""
    return f"{name}@{t}"


SymState = dict[str, z3.ExprRef]
"""A state: every state variable's name (without the time step) to its expression."""


def side_fields() -> tuple[tuple[str, str], ...]:
    return (("in", "bool"), ("ghost", "bool"), ("ts", "int"), ("size", "int"),
            ("pid", "int"), ("ver", "int"), ("tag", "int"))


def lru_name(side: str, field_name: str, k: int) -> str:
    return f"{side}_{field_name}_k{k}"


REQUEST_FIELDS = (("fe", "int"), ("n", "int"), ("retries", "int"), ("stage", "int"),
                  ("outcome", "int"), ("done", "int"), ("swap", "bool"))
"""Per request: front end, item count, retries, stage, outcome; under D6 the update's progress
(`done` items updated) and order (`swap`: the second item is updated first)."""
REQUEST_ITEM_FIELDS = (("id", "int"), ("ver", "int"), ("data", "bool"), ("missed", "bool"),
                       ("proc", "int"))
"""Per request item: identity index, content version, media attached, reported missed, and
under D6 the pid processed for it (-1: a probed hit)."""
MESSAGE_FIELDS = (("pend", "bool"), ("seq", "int"), ("eng", "int"))
MESSAGE_ITEM_FIELDS = (("data", "int"), ("ph", "int"), ("ver", "int"), ("tag", "int"))
REPLY_FIELDS = (("pend", "bool"), ("seq", "int"))
REPLY_ITEM_FIELDS = (("missed", "bool"),)
GLOBAL_FIELDS = (("clock", "int"), ("nproc", "int"), ("nreq", "int"), ("reset", "bool"),
                 ("fault", "int"), ("ld_kind", "int"), ("ld_rid", "int"))
DELIVERY_ITEM_FIELDS = (("ld_tensor", "int"), ("ld_ph", "int"), ("ld_tver", "int"),
                        ("ld_pver", "int"), ("ld_sent", "int"))


def item(field_name: str, j: int) -> str:
    """The field of item j: item("id", 1) is "id1"."""
    return f"{field_name}{j}"


def req_name(r: int, field_name: str) -> str:
    return f"req{r}_{field_name}"


def msg_name(r: int, field_name: str) -> str:
    return f"msg{r}_{field_name}"


def rep_name(r: int, field_name: str) -> str:
    return f"rep{r}_{field_name}"


def schema(enc: Encoding) -> tuple[tuple[str, str], ...]:
    """Every state variable (name, sort) of the encoding."""
    names: list[tuple[str, str]] = []
    for side in enc.sides:
        for k in range(enc.k):
            names += [(lru_name(side, f, k), sort) for f, sort in side_fields()]
    items = range(enc.m)
    for r in range(enc.r):
        names += [(req_name(r, f), sort) for f, sort in REQUEST_FIELDS]
        names += [(req_name(r, item(f, j)), sort) for j in items for f, sort in REQUEST_ITEM_FIELDS]
        names += [(msg_name(r, f), sort) for f, sort in MESSAGE_FIELDS]
        names += [(msg_name(r, item(f, j)), sort) for j in items for f, sort in MESSAGE_ITEM_FIELDS]
        names += [(rep_name(r, f), sort) for f, sort in REPLY_FIELDS]
        names += [(rep_name(r, item(f, j)), sort) for j in items for f, sort in REPLY_ITEM_FIELDS]
    names += list(GLOBAL_FIELDS)
    names += [(item(f, j), sort) for j in items for f, sort in DELIVERY_ITEM_FIELDS]
    return tuple(names)


def _declare(name: str, sort: str) -> z3.ExprRef:
    if sort == "bool":
        return z3.Bool(name)
    return z3.Int(name)


def constants(enc: Encoding) -> dict[str, z3.ExprRef]:
    """State variables that cannot change in this encoding, as their constant value: ghost slots
    on a side whose LRU has no ghost flaw, tags of an untagged variant, content versions without
    D7, the front end without D5, the item count with one item, the update's progress without
    D6. Declaring them as constants instead of variables makes the queries markedly smaller
    (S1 without D7 becomes trivially unsatisfiable, for instance)."""
    from spec import LruFlaw

    fixed: dict[str, z3.ExprRef] = {}
    for side in enc.sides:
        flaw = enc.variant.receiver_lru if side in enc.receivers else enc.variant.shadow_lru
        for k in range(enc.k):
            if flaw is not LruFlaw.GHOST_TOUCH:
                fixed[lru_name(side, "ghost", k)] = z3.BoolVal(False)
            if not enc.variant.tagged:
                fixed[lru_name(side, "tag", k)] = z3.IntVal(NONE_PID)
            if enc.versions == 1:
                fixed[lru_name(side, "ver", k)] = z3.IntVal(0)
    for r in range(enc.r):
        if enc.front_ends == 1:
            fixed[req_name(r, "fe")] = z3.IntVal(0)
        if enc.engines == 1:
            fixed[msg_name(r, "eng")] = z3.IntVal(0)
        if enc.m == 1:
            fixed[req_name(r, "n")] = z3.IntVal(1)
        if not enc.split or enc.m == 1:
            fixed[req_name(r, "done")] = z3.IntVal(0)
            fixed[req_name(r, "swap")] = z3.BoolVal(False)
        for j in range(enc.m):
            if not enc.split:
                fixed[req_name(r, item("proc", j))] = z3.IntVal(NONE_PID)
            if not enc.variant.tagged:
                fixed[msg_name(r, item("tag", j))] = z3.IntVal(NONE_PID)
            if enc.versions == 1:
                fixed[msg_name(r, item("ver", j))] = z3.IntVal(0)
                fixed[req_name(r, item("ver", j))] = z3.IntVal(0)
    if enc.versions == 1:
        for j in range(enc.m):
            for name in ("ld_tver", "ld_pver", "ld_sent"):
                fixed[item(name, j)] = z3.IntVal(0)
    return fixed


def state_at(enc: Encoding, t: int) -> SymState:
    """Fresh variables for the state at step t (constants where `constants` fixes them)."""
    fixed = constants(enc)
    return {name: fixed[name] if name in fixed else _declare(at(name, t), sort)
            for name, sort in schema(enc)}


@dataclass(frozen=True)
class Params:
    """The symbolic budget and per-content sizes, shared by every step of a query."""

    budget: z3.ArithRef
    shadow_bytes: Mapping[tuple[int, int], z3.ArithRef]
    receiver_bytes: Mapping[tuple[int, int], z3.ArithRef]


def params(enc: Encoding) -> Params:
    contents = [(k, v) for k in range(enc.k) for v in range(enc.versions)]
    return Params(
        z3.Int("budget"),
        {c: z3.Int(f"p0_bytes_k{c[0]}_v{c[1]}") for c in contents},
        {c: z3.Int(f"p1_bytes_k{c[0]}_v{c[1]}") for c in contents},
    )


def params_constraint(enc: Encoding, p: Params) -> z3.BoolRef:
    """The ranges of the parameters, and the spec's configuration rules: sizes equal on both
    sides unless D9, no item over the budget unless D11 (under D9, over it on one side
    only)."""
    low, high = enc.bounds.budget_range
    smin, smax = enc.bounds.size_range
    facts: list[z3.BoolRef] = [p.budget >= low, p.budget <= high]
    for c, shadow in p.shadow_bytes.items():
        receiver = p.receiver_bytes[c]
        facts += [shadow >= smin, shadow <= smax, receiver >= smin, receiver <= smax]
        if not enc.needs.skewed_sizes:
            facts.append(shadow == receiver)
        if enc.needs.oversized:
            continue
        if enc.needs.skewed_sizes:  # one side may skip what the other caches
            facts.append(z3.Or(shadow <= p.budget, receiver <= p.budget))
        else:
            facts += [shadow <= p.budget, receiver <= p.budget]
    return z3.And(facts)


def pick(values: list[z3.ExprRef], index: z3.ArithRef) -> z3.ExprRef:
    """values[index] for a symbolic index (the last value when out of range)."""
    result = values[-1]
    for i in range(len(values) - 2, -1, -1):
        result = z3.If(index == i, values[i], result)
    return result


def content_bytes(
    table: Mapping[tuple[int, int], z3.ArithRef], ident: z3.ArithRef, ver: z3.ArithRef
) -> z3.ArithRef:
    """The size of content (ident, ver) from a parameter table, for symbolic ident and ver."""
    keys = sorted(table)
    result: z3.ArithRef = table[keys[-1]]
    for k, v in reversed(keys[:-1]):
        result = z3.If(z3.And(ident == k, ver == v), table[(k, v)], result)
    return result
