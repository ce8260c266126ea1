"""S1 and S2 of the shared-memory design for every instance: an abstract model of its ring
over unbounded integers, proved by a certificate (a conjunction of invariants) checked for
initiation and consecution under every action with z3.

`model_checks.explore.exploration` decides one finite instance. Here nothing is bounded: the
ring's size R >= 1, every chunk's size n (1 <= n <= R: header and object together; a larger
one never fits, the allocator refuses it), the ids, addresses, epochs and contents are
integers, and there is no limit on requests, items, readers or clears.

**The abstract state** (`View`; the same record holds z3 terms for the proof and Python values
for a spec state, `abstraction`):
- the ring's registers: R, the data range [start, end) of the current lap frame, `end_offset`
  (end mod R, the physical next write position), the id range [id_start, id_end), the epoch;
- the live chunks, by id (live: id_start <= id < id_end): physical offset, size, content, and
  `high`, whether the chunk lies in the lap after the frame's first (its position in the
  frame is `physical + R` then, else `physical`; a chunk's logical address differs from its
  frame position by the laps the data range shifted since it was put, which only the
  physical offset, `address mod R`, survives in the spec's handles and reads);
- the shared memory, by physical offset: a slot's presence, header id, size, content and
  whether it is intact;
- one arbitrary handle (physical offset, id, epoch, placeholders' content, all fixed), and
  whether P0 has ever issued it: every issued handle is that one for some choice of its
  fields (a spec state knows fewer: those in flight, and those kept for clients under C1).

**The actions** (`ACTIONS`; every spec step is a sequence of them, as
`tests/designs/shm_abstraction.py` checks):
- `put`: ring.allocate of a chunk of any size n in [1, R] (wrapping to the next lap start
  when the rest of this lap is too short, refused without room: `start + n - data_start <=
  R`), ring.write of its slot (a slot whose header the chunk covers is gone, one whose data
  it covers from inside loses `intact`), and the handle P0 issues for it;
- `hit`: the handle of any live chunk, issued again (P0's placeholders are the chunk's);
- `free`: the oldest live chunk freed, whatever its reads and pins (data_start moves to the
  next live chunk, or the range resets to 0..0 when none is left), then the lap shift when
  data_start passed the buffer's end. ring.free's loop is a sequence of these: the positions
  it passes are increasing and below 2R, so one shift happens in either, at the same place;
- `clear` (D3): no live chunk, data range 0..0, ids kept; the memory keeps its bytes;
- `stutter`: everything else (a request executed, rejected, a worker's read, a client's
  handle passed on, an item sent inline) leaves the abstract state as it is.

A read is a state predicate: a worker may read any issued handle at any time. It passes the
reader's checks when the handle's epoch is the store's and (with `reader_checks_id`) the slot
at its physical offset has its id; it yields the slot's content if the slot is there and
intact, otherwise garbage. "S1" here fails when a read passes and yields anything but the
handle's placeholders: it is the property of an *atomic* read (the check and the copy in one
state, the spec's `split_read=False`), a lemma. The release's worker checks, then copies,
and P0 may write in between: S1 of the release's split read is proved where it holds by
`model_checks.designs.shm_restricted` (a copy happens while its read is still owed, so it is a
state predicate over owed reads there), and breaks where a chunk can be freed while a read of
it is owed (a P0 clear, a client's handle, a re-sent request). S2 fails when the data range
spans more than R, or a live chunk ends past the buffer, or two live chunks overlap
physically (`spec.designs.shm.properties.within_ring`).

The actions and the invariants are written once over a logic (`Logic`: `Z3Logic` for the
proof; the tests' Python evaluator, `tests/designs/shm_python_logic.py`, for values); the
tests evaluate the certificates on spec states' abstractions and check that every spec step
is a sequence of abstract actions (`tests/designs/shm_abstraction.py`).

**The certificates** (`S1_CERTIFICATE`, `S2_CERTIFICATE`): each part is universal over a slot
offset, a chunk id or a pair of ids. Each obligation negates one part at fresh points and
assumes every part at the points the step reads (`_hypothesis`: instances of a universal
statement, a weaker hypothesis than the certificate, so an unsat query proves the universal
obligation); no query has a quantifier (the memory write is an array lambda, read at single
points), and each is bounded by `RLIMIT` units. `prove_every_instance` reports per property.

S3, H1 and U1 hold only under some environments: `model_checks.designs.shm_restricted`
proves each under the largest environment it holds in, over this model with the pins'
bookkeeping added; its `restricted_proofs` reports them with the environment each covers.

What the proof shows beyond the two properties: every slot in memory is always intact. A
write starts at the next write position or at offset 0, neither strictly inside a slot, so
it removes the slots whose headers it covers and ends at or before the next slot's header;
the spec's `intact=False` branch of `ring.write` is never taken (`slot_intact`: the tests
confirm it on spec states, `tests/designs/shm_abstraction.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import product
from typing import Any, Generic, Protocol, TypeVar

import z3

from model_checks.smt.budget import Bounded
from spec.designs.shm.config import ShmKnobs

RLIMIT = 20_000_000
"""Per query. Calibrated with `prove_every_instance`'s `peak`: the costliest query of the
release's S2 certificate spent 80 to 111 thousand units (the figure moves with what the
context built before it, `model_checks.smt.budget`), S1's about 30 thousand, the mutants'
as much; 20 million leaves a margin of about 180."""

SOURCES = ("D1", "D2", "D3", "D7", "D8", "D11", "C1", "R1")
"""Every drift source of the design (`tests/designs/shm_abstraction.py` says how the abstract
actions cover each)."""


# -- one logic, two evaluators -----------------------------------------------------------------


class Logic(Protocol):
    """The connectives the actions and the invariants are written over: over z3 terms for the
    proof (`Z3Logic`), over Python values for a spec state's abstraction (the tests')."""

    def all(self, *xs: Any) -> Any: ...
    def any(self, *xs: Any) -> Any: ...
    def not_(self, x: Any) -> Any: ...
    def implies(self, a: Any, b: Any) -> Any: ...
    def ite(self, c: Any, a: Any, b: Any) -> Any: ...
    def store(self, array: Any, index: Any, value: Any) -> Any: ...
    def lam(self, body: Callable[[Any], Any]) -> Any: ...


class Z3Logic:
    """The connectives over z3 terms (the proof)."""

    @staticmethod
    def all(*xs: Any) -> Any:
        return z3.And(*xs)

    @staticmethod
    def any(*xs: Any) -> Any:
        return z3.Or(*xs)

    @staticmethod
    def not_(x: Any) -> Any:
        return z3.Not(x)

    @staticmethod
    def implies(a: Any, b: Any) -> Any:
        return z3.Implies(a, b)

    @staticmethod
    def ite(c: Any, a: Any, b: Any) -> Any:
        return z3.If(c, a, b)

    @staticmethod
    def store(array: Any, index: Any, value: Any) -> Any:
        return z3.Store(array, index, value)

    @staticmethod
    def lam(body: Callable[[Any], Any]) -> Any:
        x = z3.Int("x")
        term = body(x)
        return z3.Lambda([x], z3.BoolVal(term) if isinstance(term, bool) else term)


@dataclass(frozen=True)
class View:
    """One abstract state (module docstring), its fields z3 terms or Python values."""

    ring: Any
    start: Any
    end: Any
    end_offset: Any
    id_start: Any
    id_end: Any
    epoch: Any
    c_physical: Any
    c_high: Any
    c_nbytes: Any
    c_content: Any
    m_has: Any
    m_id: Any
    m_nbytes: Any
    m_content: Any
    m_intact: Any
    issued: Any
    h_physical: Any
    h_id: Any
    h_epoch: Any
    h_content: Any


def live(L: Logic, v: View, i: Any) -> Any:
    return L.all(v.id_start <= i, i < v.id_end)


def position(L: Logic, v: View, i: Any) -> Any:
    """Chunk `i`'s address in the data range's frame."""
    return v.c_physical[i] + L.ite(v.c_high[i], v.ring, 0)


def read_passes(L: Logic, v: View, knobs: ShmKnobs) -> Any:
    """A worker's checks of the tracked handle pass (readers.handle_fault)."""
    signed = v.h_epoch == v.epoch
    if not knobs.reader_checks_id:
        return signed
    return L.all(signed, v.m_has[v.h_physical], v.m_id[v.h_physical] == v.h_id)


def read_pairs(L: Logic, v: View) -> Any:
    """The read yields the handle's placeholders (readers._read_slot: garbage without an
    intact slot)."""
    p = v.h_physical
    return L.all(v.m_has[p], v.m_intact[p], v.m_content[p] == v.h_content)


# -- the certificates ----------------------------------------------------------------------


RING, SLOT, CHUNK, PAIR, HANDLE = "ring", "slot", "chunk", "pair", "handle"
ViewT = TypeVar("ViewT")


@dataclass(frozen=True)
class Part(Generic[ViewT]):
    """One invariant of a certificate over a view of the state (`View` here, a wider view in
    `shm_restricted`): `holds(L, view, a, b)`, universal over a slot offset (kind SLOT: a), a
    chunk id (CHUNK: a), a pair of ids (PAIR: a, b), or over none (RING, HANDLE: the tracked
    handle)."""

    name: str
    kind: str
    statement: str
    holds: Callable[[Logic, ViewT, Any, Any], Any]


def _offset_in_ring(L: Logic, v: View, a: Any, b: Any) -> Any:
    return L.all(v.ring >= 1, v.end_offset >= 0, v.end_offset < v.ring, v.id_start >= 0,
                 v.id_start <= v.id_end)


def _slot_shape(L: Logic, v: View, a: Any, b: Any) -> Any:
    return L.implies(v.m_has[a], L.all(a >= 0, v.m_nbytes[a] >= 1,
                                       a + v.m_nbytes[a] <= v.ring))


def _slot_intact(L: Logic, v: View, a: Any, b: Any) -> Any:
    return L.implies(v.m_has[a], v.m_intact[a])


def _next_write_outside(L: Logic, v: View, a: Any, b: Any) -> Any:
    return L.implies(v.m_has[a], L.not_(L.all(a < v.end_offset,
                                              v.end_offset < a + v.m_nbytes[a])))


def _chunk_header(L: Logic, v: View, a: Any, b: Any) -> Any:
    p = v.c_physical[a]
    return L.implies(live(L, v, a), L.all(
        p >= 0, p < v.ring,
        L.implies(L.all(v.m_has[p], v.m_id[p] == a), v.m_content[p] == v.c_content[a])))


def _handle_issued(L: Logic, v: View, a: Any, b: Any) -> Any:
    return L.implies(v.issued, L.all(v.h_epoch <= v.epoch, v.h_physical >= 0,
                                     v.h_physical < v.ring))


def _handle_current(L: Logic, v: View, a: Any, b: Any) -> Any:
    p = v.h_physical
    return L.implies(L.all(v.issued, v.h_epoch == v.epoch), L.all(
        v.h_id < v.id_end,
        L.implies(L.all(v.m_has[p], v.m_id[p] == v.h_id), v.m_content[p] == v.h_content)))


def _ring_frame(L: Logic, v: View, a: Any, b: Any) -> Any:
    return L.all(v.ring >= 1, v.start >= 0, v.start < v.ring, v.start <= v.end,
                 v.end - v.start <= v.ring, v.id_start >= 0, v.id_start <= v.id_end)


def _end_offset(L: Logic, v: View, a: Any, b: Any) -> Any:
    return v.end_offset == v.end - L.ite(v.end >= v.ring, v.ring, 0)


def _empty_ring(L: Logic, v: View, a: Any, b: Any) -> Any:
    return L.implies(v.id_start == v.id_end, L.all(v.start == 0, v.end == 0))


def _end_at_last(L: Logic, v: View, a: Any, b: Any) -> Any:
    last = v.id_end - 1
    return L.implies(v.id_start < v.id_end,
                     v.end == position(L, v, last) + v.c_nbytes[last])


def _chunk_fits(L: Logic, v: View, a: Any, b: Any) -> Any:
    return L.implies(live(L, v, a), L.all(
        v.c_nbytes[a] >= 1, v.c_physical[a] >= 0, v.c_physical[a] + v.c_nbytes[a] <= v.ring,
        v.start <= position(L, v, a), position(L, v, a) + v.c_nbytes[a] <= v.end))


def _chunk_next(L: Logic, v: View, a: Any, b: Any) -> Any:
    after = position(L, v, a + 1)
    return L.implies(L.all(live(L, v, a), live(L, v, a + 1)),
                     L.any(after == position(L, v, a) + v.c_nbytes[a], after == v.ring))


def _chunk_order(L: Logic, v: View, a: Any, b: Any) -> Any:
    return L.implies(L.all(live(L, v, a), live(L, v, b), a < b),
                     position(L, v, a) + v.c_nbytes[a] <= position(L, v, b))


S1_CERTIFICATE: tuple[Part[View], ...] = (
    Part("offset_in_ring", RING, "0 <= end mod R < R, 0 <= id_start <= id_end",
         _offset_in_ring),
    Part("slot_shape", SLOT, "a slot lies within the buffer", _slot_shape),
    Part("slot_intact", SLOT, "every slot in memory is intact", _slot_intact),
    Part("next_write_outside", SLOT, "the next write position (end mod R) is not strictly "
         "inside a slot", _next_write_outside),
    Part("chunk_header", CHUNK, "a live chunk's offset is within the buffer, and the slot "
         "there with its id holds its content", _chunk_header),
    Part("handle_issued", HANDLE, "an issued handle's epoch is at most the store's, its "
         "offset within the buffer", _handle_issued),
    Part("handle_current", HANDLE, "an issued handle of the current epoch has an id below "
         "id_end, and the slot at its offset with its id holds its placeholders' content",
         _handle_current),
)
"""S1: a slot is never partly overwritten (the next write position is never strictly inside
one, and a new chunk starts there or at offset 0 and ends at a slot boundary or before a
slot's header), and within an epoch an id is written once, so a slot with a current handle's
id at its offset is the write the handle was issued for."""

S2_CERTIFICATE: tuple[Part[View], ...] = (
    Part("ring_frame", RING, "0 <= start < R, start <= end <= start + R, "
         "0 <= id_start <= id_end",
         _ring_frame),
    Part("end_offset", RING, "end_offset is end mod R", _end_offset),
    Part("empty_ring", RING, "an empty ring's data range is 0..0", _empty_ring),
    Part("end_at_last", RING, "a non-empty ring ends where its newest chunk ends",
         _end_at_last),
    Part("chunk_fits", CHUNK, "a live chunk lies within the buffer and within [start, end)",
         _chunk_fits),
    Part("chunk_next", CHUNK, "the next live chunk follows contiguously or at the next lap's "
         "start", _chunk_next),
    Part("chunk_order", PAIR, "live chunks lie in id order without overlap", _chunk_order),
)
"""S2: the live chunks lie in [start, end), a window of at most R in the frame, in id order,
each within one lap: so they are disjoint in the buffer too."""

CERTIFICATES: dict[str, tuple[Part[View], ...]] = {"S1": S1_CERTIFICATE, "S2": S2_CERTIFICATE}


def s1_broken(L: Logic, v: View, knobs: ShmKnobs) -> Any:
    """A read of the tracked issued handle passes the checks and yields other content."""
    return L.all(v.issued, read_passes(L, v, knobs), L.not_(read_pairs(L, v)))


def s2_broken(L: Logic, v: View, i: Any, j: Any) -> Any:
    """properties.within_ring fails, at chunks i and j."""
    def end_of(x: Any) -> Any:
        return v.c_physical[x] + v.c_nbytes[x]
    return L.any(
        v.end - v.start > v.ring,
        L.all(live(L, v, i), end_of(i) > v.ring),
        L.all(live(L, v, i), live(L, v, j), i != j, v.c_physical[i] < end_of(j),
              v.c_physical[j] < end_of(i)))


# -- the abstract model in z3 ----------------------------------------------------------------


INT, BOOL = z3.IntSort(), z3.BoolSort()
RELEASED = ShmKnobs()
"""The release's knobs."""


@dataclass(frozen=True)
class RingKnobs:
    """The mutants: `ShmKnobs`' two ring-relevant mechanisms, and an allocator without its
    space check (`ring.allocate`'s `start + nbytes - data_start <= ring_bytes`)."""

    shm: ShmKnobs = RELEASED
    allocator_checks_space: bool = True

    @property
    def name(self) -> str:
        changed = [f"{k}={getattr(self.shm, k)}" for k in ("reader_checks_id",)
                   if not getattr(self.shm, k)]
        if not self.allocator_checks_space:
            changed.append("allocator_checks_space=False")
        return ", ".join(changed) or "the release"


RELEASE = RingKnobs()

def z3_state(suffix: str, ring: z3.ArithRef, handle: tuple[z3.ArithRef, ...]) -> View:
    """Fresh variables for one state; the ring's size and the tracked handle are shared."""
    def arr(name: str, sort: z3.SortRef) -> z3.ArrayRef:
        return z3.Array(f"{name}{suffix}", INT, sort)

    def num(name: str) -> z3.ArithRef:
        return z3.Int(f"{name}{suffix}")

    return View(ring, num("start"), num("end"), num("end_offset"), num("id_start"),
                num("id_end"), num("epoch"), arr("c_physical", INT), arr("c_high", BOOL),
                arr("c_nbytes", INT), arr("c_content", INT), arr("m_has", BOOL),
                arr("m_id", INT), arr("m_nbytes", INT), arr("m_content", INT),
                arr("m_intact", BOOL), z3.Bool(f"issued{suffix}"), *handle)


@dataclass(frozen=True)
class Choice:
    """A step's arguments: a chunk's size and content (put), a live chunk (hit)."""

    nbytes: Any
    content: Any
    chunk: Any


@dataclass(frozen=True)
class Step:
    """An action's guard and the state after it (terms over the state before, or values)."""

    guard: Any
    after: View
    write_at: Any = None  # the physical offset a put writes at


def allocation(L: Logic, v: View, n: Any, knobs: RingKnobs) -> tuple[Any, Any, Any]:
    """ring.allocate: (it succeeds, the chunk's frame position, its physical offset)."""
    wraps = v.end_offset + n > v.ring
    start = L.ite(wraps, v.end - v.end_offset + v.ring, v.end)
    physical = L.ite(wraps, 0, v.end_offset)
    fits = start + n - v.start <= v.ring
    return (fits if knobs.allocator_checks_space else True), start, physical


def put(L: Logic, v: View, c: Choice, knobs: RingKnobs) -> Step:
    n, content = c.nbytes, c.content
    ok, start, q = allocation(L, v, n, knobs)
    new = v.id_end
    after_offset = L.ite(v.end_offset + n > v.ring, n, v.end_offset + n)
    has, intact, sizes = v.m_has, v.m_intact, v.m_nbytes

    def covered(x: Any) -> Any:
        return L.all(q <= x, x < q + n)

    def inside(x: Any) -> Any:
        return L.all(has[x], x < q, q < x + sizes[x])

    after = replace(
        v, end=start + n, end_offset=L.ite(after_offset == v.ring, 0, after_offset),
        id_end=new + 1,
        c_physical=L.store(v.c_physical, new, q),
        c_high=L.store(v.c_high, new, start >= v.ring),
        c_nbytes=L.store(v.c_nbytes, new, n), c_content=L.store(v.c_content, new, content),
        m_has=L.lam(lambda x: L.ite(covered(x), x == q, has[x])),
        m_id=L.store(v.m_id, q, new), m_nbytes=L.store(v.m_nbytes, q, n),
        m_content=L.store(v.m_content, q, content),
        m_intact=L.lam(lambda x: L.ite(x == q, True, L.ite(inside(x), False, intact[x]))),
        issued=L.any(v.issued, L.all(v.h_physical == q, v.h_id == new,
                                     v.h_epoch == v.epoch, v.h_content == content)))
    return Step(L.all(n >= 1, n <= v.ring, ok), after, q)


def hit(L: Logic, v: View, c: Choice, knobs: RingKnobs) -> Step:
    k = c.chunk
    issues = L.all(v.h_physical == v.c_physical[k], v.h_id == k, v.h_epoch == v.epoch,
                   v.h_content == v.c_content[k])
    return Step(live(L, v, k), replace(v, issued=L.any(v.issued, issues)))


def free(L: Logic, v: View, c: Choice, knobs: RingKnobs) -> Step:
    nxt = v.id_start + 1
    more = nxt < v.id_end
    start = L.ite(more, position(L, v, nxt), 0)
    end = L.ite(more, v.end, 0)
    shift = start >= v.ring
    after = replace(v, id_start=nxt, start=L.ite(shift, start - v.ring, start),
                    end=L.ite(shift, end - v.ring, end),
                    end_offset=L.ite(more, v.end_offset, 0),
                    c_high=L.ite(shift, L.lam(lambda x: False), v.c_high))
    return Step(v.id_start < v.id_end, after)


def clear(L: Logic, v: View, c: Choice, knobs: RingKnobs) -> Step:
    return Step(True, replace(v, id_start=v.id_end, start=0, end=0, end_offset=0))


def stutter(L: Logic, v: View, c: Choice, knobs: RingKnobs) -> Step:
    return Step(True, v)


ACTIONS: dict[str, Callable[[Logic, View, Choice, RingKnobs], Step]] = {
    "put": put, "hit": hit, "free": free, "clear": clear, "stutter": stutter,
}
"""The abstract actions, over z3 terms (the proof) or Python values (the tests' spec steps)."""


# -- the check ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """An obligation the certificate failed, with a z3 model (or why z3 gave none)."""

    obligation: str
    model: str


@dataclass(frozen=True)
class ProofVerdict:
    """Whether `property` holds for every instance, by `certificate` (its parts' names),
    with every query under `rlimit` units; `peak`: the most one query spent."""

    property: str
    proved: bool
    certificate: str
    knobs: str
    rlimit: int
    peak: int
    queries: int
    seconds: float
    sources: tuple[str, ...]
    failures: tuple[Failure, ...] = ()

    def summary(self) -> str:
        if self.proved:
            return (f"{self.property} holds for every instance of the shm design under every "
                    f"environment of {'+'.join(self.sources)} ({self.knobs}): certificate "
                    f"{self.certificate}, {self.queries} queries, peak {self.peak} of rlimit "
                    f"{self.rlimit}")
        first = self.failures[0]
        return (f"{self.property} not proved ({self.knobs}): {first.obligation} fails\n"
                f"{first.model}")


@dataclass(frozen=True)
class _Points:
    slot: z3.ArithRef
    i: z3.ArithRef
    j: z3.ArithRef


def instances(part: Part[ViewT], v: ViewT, slots: Sequence[Any], chunks: Sequence[Any]
              ) -> list[Any]:
    """Every instance of `part` at the given points: one per slot offset (SLOT), one per chunk
    id (CHUNK), one per ordered pair of chunk ids (PAIR), else the one (RING, HANDLE)."""
    L = Z3Logic
    if part.kind == SLOT:
        return [part.holds(L, v, p, None) for p in slots]
    if part.kind == CHUNK:
        return [part.holds(L, v, i, None) for i in chunks]
    if part.kind == PAIR:
        return [part.holds(L, v, a, b) for a, b in product(chunks, repeat=2)]
    return [part.holds(L, v, None, None)]


def _hypothesis(certificate: Sequence[Part[View]], v: View, pts: _Points, c: Choice,
                write_at: Any = None) -> z3.BoolRef:
    """The certificate at every point a step reads: the fresh slot and chunk points, the
    chunks a step names (the hit's, the oldest, its successor, the newest, i + 1), and the
    slots at their offsets, the handle's and the write's."""
    chunks = [pts.i, pts.j, c.chunk, pts.i + 1, v.id_start, v.id_start + 1, v.id_end - 1]
    slots = [pts.slot, v.h_physical, *(v.c_physical[x] for x in chunks)]
    if write_at is not None:
        slots.append(write_at)
    return z3.And([f for part in certificate for f in instances(part, v, slots, chunks)])


def _at(part: Part[View], v: View, pts: _Points) -> Any:
    if part.kind == SLOT:
        return part.holds(Z3Logic, v, pts.slot, None)
    if part.kind == CHUNK:
        return part.holds(Z3Logic, v, pts.i, None)
    return part.holds(Z3Logic, v, pts.i, pts.j)


def initial(v: View) -> z3.BoolRef:
    x = z3.Int("x")
    return z3.And(v.start == 0, v.end == 0, v.end_offset == 0, v.id_start == 0,
                  v.id_end == 0, v.epoch == 0, z3.Not(v.issued),
                  v.m_has == z3.Lambda([x], z3.BoolVal(False)))


def _readable(model: z3.ModelRef, before: View, after: View | None, pts: _Points, c: Choice,
              write_at: Any) -> str:
    """The model's values at the points the obligation names, before (and after) the step."""
    def val(term: Any) -> str:
        if isinstance(term, bool | int):
            return str(term)
        return str(model.eval(term, model_completion=True))

    lines = [f"ring R={val(before.ring)}; points: slot {val(pts.slot)}, chunks i={val(pts.i)} "
             f"j={val(pts.j)}; choice: n={val(c.nbytes)} content={val(c.content)} "
             f"hit chunk={val(c.chunk)}" + ("" if write_at is None else
                                           f"; writes at {val(write_at)}"),
             f"handle: physical {val(before.h_physical)} id {val(before.h_id)} epoch "
             f"{val(before.h_epoch)} placeholders {val(before.h_content)}"]
    chunk_ids = sorted({val(t) for t in (pts.i, pts.j, c.chunk, before.id_start,
                                          before.id_end - 1)}, key=int)
    for label, v in (("before", before), ("after", after)):
        if v is None:
            continue
        slots = sorted({val(t) for t in (pts.slot, v.h_physical,
                                         *(v.c_physical[z3.IntVal(int(x))]
                                           for x in chunk_ids))}, key=int)
        if after is not None:
            lines.append(f"{label} the step:")
        lines.append(
            f"  data {val(v.start)}..{val(v.end)} (end mod R {val(v.end_offset)}), ids "
            f"{val(v.id_start)}..{val(v.id_end)}, epoch {val(v.epoch)}, handle issued "
            f"{val(v.issued)}")
        for x in chunk_ids:
            i = z3.IntVal(int(x))
            if not z3.is_true(model.eval(live(Z3Logic, v, i), model_completion=True)):
                continue
            lines.append(f"  live chunk #{x}: physical "
                         f"{val(v.c_physical[i])} high lap {val(v.c_high[i])} bytes "
                         f"{val(v.c_nbytes[i])} content {val(v.c_content[i])}")
        for p_ in slots:
            p = z3.IntVal(int(p_))
            if z3.is_true(model.eval(v.m_has[p], model_completion=True)):
                lines.append(f"  slot at {p_}: id {val(v.m_id[p])} bytes {val(v.m_nbytes[p])} "
                             f"content {val(v.m_content[p])} intact {val(v.m_intact[p])}")
    return "\n".join(lines)


def as_z3(value: Any) -> Any:
    """A guard as a z3 term (an action's guard may be a Python bool)."""
    return z3.BoolVal(value) if isinstance(value, bool) else value


def _named(v: View, pts: _Points, c: Choice) -> list[Any]:
    return [v.ring, v.start, v.end, v.end_offset, v.id_start, v.id_end, v.epoch, v.h_physical,
            v.h_id, v.h_epoch, v.h_content, pts.slot, pts.i, pts.j, c.nbytes, c.content,
            c.chunk]


def small_model(facts: list[Any], terms: list[Any], rlimit: int) -> z3.ModelRef | None:
    """A model of `facts` with the named integers small (for reading), if one is found."""
    for bound in (4, 16, 256):
        solver = Bounded(rlimit)
        solver.add(*facts, *(z3.And(-bound <= t, t <= bound) for t in terms))
        if solver.check().result == z3.sat:
            return solver.model()
    return None


def prove(prop: str, knobs: RingKnobs = RELEASE, rlimit: int = RLIMIT,
          stop_at_first: bool = False) -> ProofVerdict:
    """Check `prop`'s certificate in the abstract model with `knobs`: non-vacuity, initiation,
    consecution of each part under each action, and the certificate implies the property."""
    begin = time.perf_counter()
    certificate = CERTIFICATES[prop]
    ring = z3.Int("R")
    handle = (z3.Int("h_physical"), z3.Int("h_id"), z3.Int("h_epoch"), z3.Int("h_content"))
    v = z3_state("", ring, handle)
    pts = _Points(z3.Int("p"), z3.Int("i"), z3.Int("j"))
    c = Choice(z3.Int("n"), z3.Int("content"), z3.Int("k"))
    peak, queries, failures = 0, 0, []

    def must(expected: z3.CheckSatResult, what: str, facts: list[Any], after: View | None = None,
             write_at: Any = None) -> None:
        nonlocal peak, queries
        solver = Bounded(rlimit)
        solver.add(ring >= 1, *facts)
        answer = solver.check()
        queries += 1
        peak = max(peak, answer.used)
        if answer.result == expected:
            return
        if answer.result == z3.sat:
            model = small_model([ring >= 1, *facts], _named(v, pts, c), rlimit)
            shown = _readable(model or solver.model(), v, after, pts, c, write_at)
        elif answer.result == z3.unknown:
            shown = f"undecided: {answer.why_unknown()}"
        else:
            shown = "unsat: the invariant does not hold in any initial state"
        failures.append(Failure(what, shown))

    hyp = _hypothesis(certificate, v, pts, c)
    must(z3.sat, "non-vacuity (the certificate holds in an initial state)", [initial(v), hyp])
    for part in certificate:
        if failures and stop_at_first:
            break
        must(z3.unsat, f"initiation of {part.name}", [initial(v), z3.Not(_at(part, v, pts))])
    for label, action in ACTIONS.items():
        step = action(Z3Logic, v, c, knobs)
        hyp = _hypothesis(certificate, v, pts, c, step.write_at)
        for part in certificate:
            if failures and stop_at_first:
                break
            must(z3.unsat, f"consecution of {part.name} under {label}",
                 [hyp, as_z3(step.guard), z3.Not(_at(part, step.after, pts))], step.after,
                 step.write_at)
    hyp = _hypothesis(certificate, v, pts, c)
    bad = (s1_broken(Z3Logic, v, knobs.shm) if prop == "S1"
           else s2_broken(Z3Logic, v, pts.i, pts.j))
    if not (failures and stop_at_first):
        must(z3.unsat, f"the certificate implies {prop}", [hyp, bad])
    return ProofVerdict(prop, not failures, " & ".join(p.name for p in certificate),
                        knobs.name, rlimit, peak, queries,
                        round(time.perf_counter() - begin, 3), SOURCES, tuple(failures))


def prove_every_instance(knobs: RingKnobs = RELEASE, rlimit: int = RLIMIT
                         ) -> dict[str, ProofVerdict]:
    """S1 of an atomic read (a lemma, module docstring) and S2 of the shm design for every
    instance (any ring, sizes, header, readers, requests, items, identities, contents and
    clears) under every environment of
    its sources (`SOURCES`, all at once), with
    `client_handle_counts` either way (pins are abstracted away). With the release's knobs
    both are proved; a mutant's verdict names the obligation that failed, with a model."""
    return {prop: prove(prop, knobs, rlimit) for prop in CERTIFICATES}
