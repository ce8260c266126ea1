"""S1, S3, H1 and U1 of the shared-memory design for every instance, each under the
environments it holds in (`shm_proofs` proves S2 under every environment, and S1 of an atomic
read; these break under some sources, so each proof covers the largest environment the
lattice says it holds in, and adding a source it excludes makes it fail at a named
obligation).

**What is added to `shm_proofs`' abstract state** (`RestrictedView`: its `View` and four more
fields):
- `readers`: the number of workers N >= 1 (an unbounded integer);
- per chunk id: `quota`, the reads its pins ask for (writers x N: P0's issued handles times
  the readers; kept as one number so that every query stays linear), and `pending`, the reads
  still owed of the chunk's handles of the current epoch: for every in-flight message (queued:
  N readers owe it; executed at index j: the workers whose position is at most j), its
  handle items with that id;
- per slot: `reads`, the in-use flag's count the shared memory keeps.

**The actions** (`ACTIONS`), over `shm_proofs`' ring actions:
- `put`: a new chunk, quota N, N more reads owed, its slot's reads 0;
- `hit`: a live chunk's handle issued again: N more to its quota and N more reads owed;
- `free`: the oldest live chunk, only when its slot's reads (`ring.reads_of`) reach its
  quota (the release's FIFO freeing stops at the first chunk in use; a touched chunk stops it
  too, which only narrows the guard);
- `read`: a worker copies one owed handle of chunk k of the current epoch: the slot at k's
  offset counts one more read (whichever chunk's slot is there now), one fewer read is owed.
  The worker's check before its copy (`Check`) changes nothing here (a `stutter`); a check
  that fails is a fault, where the engine stops (no step of the model), and S3's violation
  is a state where a check of an owed read would fail (`s3_broken`). The read stays owed
  until the copy counts it, so a copy happens in a state where its read is owed;
- `drop` (D2): an owed read that never happens (a request lost before the workers read it);
- `client` (C1): a client's handle of a live chunk P0 accepts: N more reads owed, quota
  unchanged (the release does not count it; `client_handle_counts` adds N to the quota);
- `resend` (R1): a preempted request's handle of any chunk issued so far (live or not)
  read again by every worker: N more reads owed, quota unchanged;
- `clear` (D3); `stutter`: anything else.
D1 (any order: the reads are any owed read at any time), D7 (any content per put), D8 (puts,
frees and refusals in any sequence) and D11 (an inline item: a stutter) need no action of
their own, as for `shm_proofs` (`tests/designs/shm_abstraction.py`).

**The certificates**: both contain `shm_proofs.S2_CERTIFICATE` (re-proved here under these
actions), `chunk_slot` (a live chunk's slot is in memory with its id: no write lands on a live
chunk), `pending_nonneg` and `pending_fresh` (no reads are owed of an id not yet put).
- S3/H1 (`S3_CERTIFICATE`): `owed_live` (a chunk with an owed read is live) and `counted`
  (reads + pending <= quota for a live chunk). So a chunk with an owed read is pinned, FIFO
  freeing stops at it (and so frees nothing after it), its slot keeps its id, and with no
  restart the epoch never changes: the worker's checks pass, no fault (every fault is a
  handle's, so S3 and H1 are one obligation). Under D3 `owed_live` fails at `clear`; under
  C1 `counted` fails at `client` (its reads pay for another handle's); under R1 `owed_live`
  fails at `resend` (a re-sent handle of a chunk already freed).
- S1 of the split read (`S1_CERTIFICATE`): S3's, `shm_proofs.S1_CERTIFICATE` (a slot is never
  partly overwritten; the slot at a current handle's offset with its id holds its
  placeholders' content) and `handle_chunk` (a current issued handle of a live chunk names
  that chunk's offset and content). A copy is of an owed read, whose chunk is live
  (`owed_live`), so its slot carries its id (`chunk_slot`) and the handle's placeholders'
  content, intact: the copy pairs, whenever it comes after the check. Under D3 and C1 it
  breaks (`owed_live`, `counted`), and under R1 (`owed_live`): the lattice has the
  witnesses, a chunk overwritten between a worker's check and its copy.
- U1 (`U1_CERTIFICATE`): `paid` (reads + pending >= quota for a live chunk). At a quiescent
  state nothing is owed, so every live chunk's reads reach its quota: nothing is pinned.
  A client's handle only adds owed reads; a clear drops the live chunks (a new
  one starts with quota N and N reads owed); a read of a cleared chunk's handle passes only
  where the slot at its offset still carries its id, which is then no live chunk's slot
  (`chunk_slot`), so it adds to no live chunk's reads. Under D2 `paid` fails at `drop`.

The tests evaluate a certificate on spec states' abstractions and check that every spec step
is a sequence of these actions (`tests/designs/shm_restricted_abstraction.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import z3

from model_checks.designs import shm_proofs as sp
from model_checks.designs.shm_proofs import (
    CHUNK,
    SLOT,
    Choice,
    Failure,
    Logic,
    Part,
    View,
    Z3Logic,
    live,
)
from model_checks.smt.budget import Bounded
from spec.drift import Environment

RLIMIT = sp.RLIMIT

S3_ENVIRONMENT = frozenset({"D1", "D2", "D7", "D8", "D11"})
"""The largest environment S1, S3 and H1 hold in: no P0 clear, no client handle, no request
re-sent to the workers."""

U1_ENVIRONMENT = frozenset({"D1", "D3", "D7", "D8", "D11", "C1", "R1"})
"""The largest environment U1 holds in: every source but D2 (a lost request)."""

ENVIRONMENTS: dict[str, frozenset[str]] = {"S1": S3_ENVIRONMENT, "S3": S3_ENVIRONMENT,
                                           "H1": S3_ENVIRONMENT, "U1": U1_ENVIRONMENT}


@dataclass(frozen=True)
class RestrictedView:
    """The restricted proofs' abstract state: `shm_proofs.View` (`v`) with the pins'
    bookkeeping (`readers`, `quota`, `pending`, `reads`; module docstring)."""

    v: View
    readers: Any
    quota: Any
    pending: Any
    reads: Any


def passes(L: Logic, x: RestrictedView, k: Any) -> Any:
    """A worker's id check of a current handle of chunk k passes: the slot at k's offset is in
    memory and carries k's id (`readers.handle_fault`)."""
    p = x.v.c_physical[k]
    return L.all(x.v.m_has[p], x.v.m_id[p] == k)


def reads_of(L: Logic, x: RestrictedView, k: Any) -> Any:
    """`ring.reads_of`: the reads chunk k's slot records, 0 where its header is gone."""
    p = x.v.c_physical[k]
    return L.ite(passes(L, x, k), x.reads[p], 0)


# -- the certificates ----------------------------------------------------------------------


RestrictedPart = sp.Part[RestrictedView]
"""One invariant over a `RestrictedView` (`shm_proofs.Part`'s kinds)."""


def _lift(part: Part[View]) -> RestrictedPart:
    def holds(L: Logic, x: RestrictedView, a: Any, b: Any) -> Any:
        return part.holds(L, x.v, a, b)
    return RestrictedPart(part.name, part.kind, part.statement, holds)


def _chunk_slot(L: Logic, x: RestrictedView, a: Any, b: Any) -> Any:
    return L.implies(live(L, x.v, a), passes(L, x, a))


def _pending_nonneg(L: Logic, x: RestrictedView, a: Any, b: Any) -> Any:
    return x.pending[a] >= 0


def _pending_fresh(L: Logic, x: RestrictedView, a: Any, b: Any) -> Any:
    return L.implies(a >= x.v.id_end, x.pending[a] == 0)


def _owed_live(L: Logic, x: RestrictedView, a: Any, b: Any) -> Any:
    return L.implies(x.pending[a] >= 1, live(L, x.v, a))


def _counted(L: Logic, x: RestrictedView, a: Any, b: Any) -> Any:
    return L.implies(live(L, x.v, a), reads_of(L, x, a) + x.pending[a] <= x.quota[a])


def _paid(L: Logic, x: RestrictedView, a: Any, b: Any) -> Any:
    return L.implies(live(L, x.v, a), reads_of(L, x, a) + x.pending[a] >= x.quota[a])


def _readers_positive(L: Logic, x: RestrictedView, a: Any, b: Any) -> Any:
    return x.readers >= 1


COMMON: tuple[RestrictedPart, ...] = (
    *(_lift(p) for p in sp.S2_CERTIFICATE),
    RestrictedPart("readers_positive", sp.RING, "N >= 1", _readers_positive),
    RestrictedPart("chunk_slot", CHUNK, "a live chunk's slot is in memory with its id",
                   _chunk_slot),
    RestrictedPart("pending_nonneg", CHUNK, "no chunk owes a negative number of reads",
                   _pending_nonneg),
    RestrictedPart("pending_fresh", CHUNK, "no read is owed of an id at or past id_end",
                   _pending_fresh),
)

S3_CERTIFICATE: tuple[RestrictedPart, ...] = (
    *COMMON,
    RestrictedPart("owed_live", CHUNK, "a chunk with an owed read is live", _owed_live),
    RestrictedPart("counted", CHUNK, "a live chunk's reads and owed reads are at most its "
                   "quota (writers x readers)", _counted),
)
"""S3 and H1: an owed read's chunk is live and pinned, so its slot carries its id."""

def _handle_chunk(L: Logic, x: RestrictedView, a: Any, b: Any) -> Any:
    v = x.v
    return L.implies(L.all(v.issued, v.h_epoch == v.epoch, live(L, v, v.h_id)),
                     L.all(v.h_physical == v.c_physical[v.h_id],
                           v.h_content == v.c_content[v.h_id]))


S1_CERTIFICATE: tuple[RestrictedPart, ...] = (
    *S3_CERTIFICATE,
    *(_lift(p) for p in sp.S1_CERTIFICATE),
    RestrictedPart("handle_chunk", sp.HANDLE, "a current issued handle of a live chunk "
                   "names its chunk's offset and content", _handle_chunk),
)
"""S1 of the split read: a copy comes while its read is owed, so its chunk is live, pinned,
intact, and holds the handle's placeholders' content."""

U1_CERTIFICATE: tuple[RestrictedPart, ...] = (
    *COMMON,
    RestrictedPart("paid", CHUNK, "a live chunk's reads and owed reads are at least its "
                   "quota (writers x readers)", _paid),
)
"""U1: with nothing owed, a live chunk's reads reach its quota."""

CERTIFICATES: dict[str, tuple[RestrictedPart, ...]] = {
    "S1": S1_CERTIFICATE, "S3": S3_CERTIFICATE, "H1": S3_CERTIFICATE, "U1": U1_CERTIFICATE}


def s1_broken(L: Logic, x: RestrictedView, k: Any) -> Any:
    """A copy of the tracked issued handle (of the current epoch, its read owed) yields other
    content than its placeholders' (`shm_proofs.read_pairs`)."""
    v = x.v
    return L.all(v.issued, v.h_epoch == v.epoch, x.pending[v.h_id] >= 1,
                 L.not_(sp.read_pairs(L, v)))


def s3_broken(L: Logic, x: RestrictedView, k: Any) -> Any:
    """An owed read of chunk k whose check fails (a fault: S3 and H1 break)."""
    return L.all(x.pending[k] >= 1, L.not_(passes(L, x, k)))


def u1_broken(L: Logic, x: RestrictedView, k: Any) -> Any:
    """Chunk k is live, nothing is owed of it, and its reads fall short of its quota (at a
    quiescent state nothing is owed of any chunk: `properties.usable` fails)."""
    return L.all(live(L, x.v, k), x.pending[k] == 0, reads_of(L, x, k) < x.quota[k])


BROKEN: dict[str, Callable[[Logic, RestrictedView, Any], Any]] = {
    "S1": s1_broken, "S3": s3_broken, "H1": s3_broken, "U1": u1_broken}
"""Each property's violation at a chunk point (S1's is the tracked handle's)."""


# -- the actions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RestrictedStep:
    """An action's guard and the `RestrictedView` after it (`shm_proofs.Step`'s, with
    `write_at` the physical offset a put writes at)."""

    guard: Any
    after: RestrictedView
    write_at: Any = None


@dataclass(frozen=True)
class RestrictedKnobs:
    """`client_handle_counts`: the release (off), or a client's handle counts in the quota.
    """

    client_handle_counts: bool = False


def _base(label: str, L: Logic, x: RestrictedView, c: Choice) -> sp.Step:
    return sp.ACTIONS[label](L, x.v, c, sp.RELEASE)


def put(L: Logic, x: RestrictedView, c: Choice, k: RestrictedKnobs) -> RestrictedStep:
    step = _base("put", L, x, c)
    new = x.v.id_end
    after = RestrictedView(step.after, x.readers, L.store(x.quota, new, x.readers),
                           L.store(x.pending, new, x.pending[new] + x.readers),
                           L.store(x.reads, step.write_at, 0))
    return RestrictedStep(step.guard, after, step.write_at)


def hit(L: Logic, x: RestrictedView, c: Choice, k: RestrictedKnobs) -> RestrictedStep:
    step = _base("hit", L, x, c)
    i = c.chunk
    after = replace(x, v=step.after, quota=L.store(x.quota, i, x.quota[i] + x.readers),
                    pending=L.store(x.pending, i, x.pending[i] + x.readers))
    return RestrictedStep(step.guard, after)


def free(L: Logic, x: RestrictedView, c: Choice, k: RestrictedKnobs) -> RestrictedStep:
    step = _base("free", L, x, c)
    oldest = x.v.id_start
    unpinned = reads_of(L, x, oldest) >= x.quota[oldest]
    return RestrictedStep(L.all(step.guard, unpinned), replace(x, v=step.after))


def read(L: Logic, x: RestrictedView, c: Choice, k: RestrictedKnobs) -> RestrictedStep:
    i = c.chunk
    p = x.v.c_physical[i]
    after = replace(x, pending=L.store(x.pending, i, x.pending[i] - 1),
                    reads=L.store(x.reads, p, x.reads[p] + 1))
    return RestrictedStep(x.pending[i] >= 1, after)


def drop(L: Logic, x: RestrictedView, c: Choice, k: RestrictedKnobs) -> RestrictedStep:
    i = c.chunk
    return RestrictedStep(x.pending[i] >= 1,
                          replace(x, pending=L.store(x.pending, i, x.pending[i] - 1)))


def client(L: Logic, x: RestrictedView, c: Choice, k: RestrictedKnobs) -> RestrictedStep:
    i = c.chunk
    quota = (L.store(x.quota, i, x.quota[i] + x.readers) if k.client_handle_counts
             else x.quota)
    return RestrictedStep(live(L, x.v, i), replace(
        x, quota=quota, pending=L.store(x.pending, i, x.pending[i] + x.readers)))


def resend(L: Logic, x: RestrictedView, c: Choice, k: RestrictedKnobs) -> RestrictedStep:
    i = c.chunk
    return RestrictedStep(L.all(i >= 0, i < x.v.id_end), replace(
        x, pending=L.store(x.pending, i, x.pending[i] + x.readers)))


def clear(L: Logic, x: RestrictedView, c: Choice, k: RestrictedKnobs) -> RestrictedStep:
    return RestrictedStep(True, replace(x, v=_base("clear", L, x, c).after))


def stutter(L: Logic, x: RestrictedView, c: Choice, k: RestrictedKnobs) -> RestrictedStep:
    return RestrictedStep(True, x)


RestrictedAction = Callable[[Logic, RestrictedView, Choice, RestrictedKnobs], RestrictedStep]

ACTIONS: dict[str, RestrictedAction] = {
    "put": put, "hit": hit, "free": free, "read": read, "stutter": stutter,
    "drop": drop, "client": client, "resend": resend, "clear": clear,
}
"""Every abstract action; `actions_of` picks those of an environment."""

REQUIRES: dict[str, str] = {"drop": "D2", "client": "C1", "resend": "R1", "clear": "D3"}
"""The action a source adds; the others are in every environment."""


def actions_of(environment: frozenset[str]) -> dict[str, RestrictedAction]:
    return {label: action for label, action in ACTIONS.items()
            if REQUIRES.get(label) is None or REQUIRES[label] in environment}


# -- the proof -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RestrictedVerdict:
    """Whether `property` holds for every instance under every environment of `environment`,
    by `certificate`, with every query under `rlimit` units; `peak`: the most one spent."""

    property: str
    environment: frozenset[str]
    proved: bool
    certificate: str
    knobs: str
    rlimit: int
    peak: int
    queries: int
    seconds: float
    failures: tuple[Failure, ...] = ()

    def sources(self) -> str:
        return Environment.of(self.environment).text

    def summary(self) -> str:
        if self.proved:
            return (f"{self.property} holds for every instance of the shm design under every "
                    f"environment of {self.sources()} ({self.knobs}): certificate "
                    f"{self.certificate}, {self.queries} queries, peak {self.peak} of rlimit "
                    f"{self.rlimit}")
        first = self.failures[0]
        return (f"{self.property} not proved under {self.sources()} ({self.knobs}): "
                f"{first.obligation} fails\n{first.model}")


def z3_restricted_view(suffix: str, ring: z3.ArithRef, handle: tuple[z3.ArithRef, ...],
                       readers: z3.ArithRef) -> RestrictedView:
    def arr(name: str) -> z3.ArrayRef:
        return z3.Array(f"{name}{suffix}", sp.INT, sp.INT)
    return RestrictedView(sp.z3_state(suffix, ring, handle), readers, arr("quota"),
                          arr("pending"), arr("reads"))


def _hypothesis(certificate: Sequence[RestrictedPart], x: RestrictedView,
                at: tuple[Any, Any, Any], c: Choice, write_at: Any = None) -> z3.BoolRef:
    """The certificate at the points a step reads (`shm_proofs._hypothesis`'s, id_end and the
    tracked handle's chunk; the tracked handle's offset and the write's, for the parts
    universal over a slot); `at` is the chunks i, j and the slot the parts are read at."""
    i, j, slot = at
    v = x.v
    chunks = [i, j, c.chunk, i + 1, v.id_start, v.id_start + 1, v.id_end - 1, v.id_end,
              v.h_id]
    slots = [slot, v.h_physical, *(v.c_physical[y] for y in chunks)]
    if write_at is not None:
        slots.append(write_at)
    return z3.And([f for part in certificate for f in sp.instances(part, x, slots, chunks)])


def _at(part: RestrictedPart, x: RestrictedView, i: Any, j: Any, slot: Any) -> Any:
    if part.kind == SLOT:
        return part.holds(Z3Logic, x, slot, None)
    if part.kind == CHUNK:
        return part.holds(Z3Logic, x, i, None)
    return part.holds(Z3Logic, x, i, j)


def _initial(x: RestrictedView) -> z3.BoolRef:
    y = z3.Int("y")
    return z3.And(sp.initial(x.v), x.readers >= 1,
                  x.pending == z3.Lambda([y], z3.IntVal(0)))


def _readable(model: z3.ModelRef, x: RestrictedView, after: RestrictedView | None,
              points: tuple[Any, Any, Any, Choice]) -> str:
    """A failing query's model, readable: the chosen chunks `i`, `j`, the slot and the
    step's choice (`points`), then each side of the step."""
    i, j, slot, c = points
    def val(term: Any) -> str:
        if isinstance(term, bool | int):
            return str(term)
        return str(model.eval(term, model_completion=True))

    lines = [f"ring R={val(x.v.ring)}, readers N={val(x.readers)}; points: chunks i={val(i)} "
             f"j={val(j)}, slot {val(slot)}; choice: n={val(c.nbytes)} chunk k={val(c.chunk)}"]
    ids = sorted({int(val(t)) for t in (i, c.chunk, x.v.id_start, x.v.id_end - 1)})
    for label, view in (("before", x), ("after", after)):
        if view is None:
            continue
        lines.append(f"{label} the step: data {val(view.v.start)}..{val(view.v.end)}, ids "
                     f"{val(view.v.id_start)}..{val(view.v.id_end)}, epoch {val(view.v.epoch)}")
        for y in ids:
            k = z3.IntVal(y)
            p = view.v.c_physical[k]
            slot_has = z3.is_true(model.eval(view.v.m_has[p], model_completion=True))
            header = f"slot id {val(view.v.m_id[p])}" if slot_has else "no slot"
            lines.append(f"  chunk #{y}: live {val(live(Z3Logic, view.v, k))} physical "
                         f"{val(p)} ({header}, reads {val(view.reads[p])}) quota "
                         f"{val(view.quota[k])} pending {val(view.pending[k])}")
    return "\n".join(lines)


def prove_restricted(prop: str, environment: frozenset[str] | None = None,
                     knobs: RestrictedKnobs | None = None, rlimit: int = RLIMIT,
                     stop_at_first: bool = False) -> RestrictedVerdict:
    """Check `prop`'s certificate (S1, S3, H1 or U1) in the abstract model with the actions of
    `environment` (default: the largest it holds in, `ENVIRONMENTS`): non-vacuity,
    initiation, consecution of each part under each action, and the certificate implies the
    property."""
    begin = time.perf_counter()
    environment = ENVIRONMENTS[prop] if environment is None else environment
    knobs = RestrictedKnobs() if knobs is None else knobs
    certificate = CERTIFICATES[prop]
    ring, readers = z3.Int("R"), z3.Int("N")
    handle = (z3.Int("h_physical"), z3.Int("h_id"), z3.Int("h_epoch"), z3.Int("h_content"))
    x = z3_restricted_view("", ring, handle, readers)
    i, j, slot = z3.Int("i"), z3.Int("j"), z3.Int("p")
    c = Choice(z3.Int("n"), z3.Int("content"), z3.Int("k"))
    peak, queries, failures = 0, 0, []
    named = [ring, readers, i, j, slot, c.nbytes, c.chunk, x.v.id_start, x.v.id_end,
             x.v.start, x.v.end]

    def must(expected: z3.CheckSatResult, what: str, facts: list[Any],
             after: RestrictedView | None = None) -> None:
        nonlocal peak, queries
        solver = Bounded(rlimit)
        solver.add(ring >= 1, *facts)
        answer = solver.check()
        queries += 1
        peak = max(peak, answer.used)
        if answer.result == expected:
            return
        if answer.result == z3.sat:
            model = sp.small_model([ring >= 1, *facts], named, rlimit)
            shown = _readable(model or solver.model(), x, after, (i, j, slot, c))
        elif answer.result == z3.unknown:
            shown = f"undecided: {answer.why_unknown()}"
        else:
            shown = "unsat: the invariant does not hold in any initial state"
        failures.append(Failure(what, shown))

    hyp = _hypothesis(certificate, x, (i, j, slot), c)
    must(z3.sat, "non-vacuity (the certificate holds in an initial state)", [_initial(x), hyp])
    for part in certificate:
        if failures and stop_at_first:
            break
        must(z3.unsat, f"initiation of {part.name}",
             [_initial(x), z3.Not(_at(part, x, i, j, slot))])
    for label, action in actions_of(environment).items():
        step = action(Z3Logic, x, c, knobs)
        step_hyp = hyp if step.write_at is None else _hypothesis(
            certificate, x, (i, j, slot), c, step.write_at)
        for part in certificate:
            if failures and stop_at_first:
                break
            must(z3.unsat, f"consecution of {part.name} under {label}",
                 [step_hyp, sp.as_z3(step.guard), z3.Not(_at(part, step.after, i, j, slot))],
                 step.after)
    if not (failures and stop_at_first):
        bad = BROKEN[prop](Z3Logic, x, i)
        must(z3.unsat, f"the certificate implies {prop}", [hyp, bad])
    name = "client_handle_counts=True" if knobs.client_handle_counts else "the release"
    return RestrictedVerdict(prop, environment, not failures,
                             " & ".join(p.name for p in certificate), name, rlimit, peak,
                             queries, round(time.perf_counter() - begin, 3), tuple(failures))


def prove_restricted_all(rlimit: int = RLIMIT) -> dict[str, RestrictedVerdict]:
    """S1, S3 and H1 under every environment of `S3_ENVIRONMENT`, U1 under every environment
    of `U1_ENVIRONMENT`, each for every instance, with the release's knobs. Every fault is a
    handle's (`readers.handle_fault`), so H1 and S3 are one obligation: one proof serves
    both (`prove_restricted("H1")` runs it again under H1's name)."""
    s3 = prove_restricted("S3", rlimit=rlimit)
    return {"S1": prove_restricted("S1", rlimit=rlimit), "S3": s3,
            "H1": replace(s3, property="H1"), "U1": prove_restricted("U1", rlimit=rlimit)}


def restricted_proofs(rlimit: int = RLIMIT) -> list[tuple[str, frozenset[str], str]]:
    """S1, S3, H1 and U1 proved for every instance, each under every environment of the largest
    environment it holds in (`shm_restricted.ENVIRONMENTS`): (property, that environment,
    what proved it), for the proofs that succeed. Unlike `prove_every_instance`'s, these do
    not cover every environment: a source outside it makes the proof fail (and the lattice
    breaks the property there)."""
    return [(prop, verdict.environment,
             f"proved for every instance under every environment of {verdict.sources()} "
             f"(Z3: {verdict.certificate})")
            for prop, verdict in prove_restricted_all(rlimit).items() if verdict.proved]
