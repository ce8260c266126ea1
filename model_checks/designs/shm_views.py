"""What the shared-memory design's lockstep compares after each step, in the model's terms, and
how the spec states it: the observation types an implementation's side reports (`ShmSide`),
the spec's own observation of a step (`spec_observation`), and the design's properties judged
on an observation alone (`breaks`), so a replay can say whether the implementation breaks a
property without reading the spec's state.

Addresses and sizes are model bytes: a side converts its own bytes with its byte map (an
address that is not a whole number of model bytes is reported as a float, and so differs).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from spec.config import Content
from spec.designs.shm import ring as ring_ops
from spec.designs.shm import sender
from spec.designs.shm.actions import Check, ClientHandle, Copy, ShmAction, Submit
from spec.designs.shm.config import ShmConfig
from spec.designs.shm.state import Handle, Inline, ShmState

SIGNATURE, STALE_ID = "invalid signature", "data modified or invalid"
"""The two ways a worker's check of a handle raises (the spec's fault texts end with one)."""


@dataclass(frozen=True, slots=True)
class HandleRef:
    """A handle P0 issued, as the model names it: key, address, id, and the secret's epoch
    (how many times P0 restarted before it signed it)."""

    key: str
    address: int
    id: int
    epoch: int


@dataclass(frozen=True, slots=True)
class SentItem:
    """One item as P0 sent it: a handle (`address`, `id` set) or inline (`content` set), and
    the content P0's prompt updates (placeholders) come from."""

    key: str
    handle: bool
    address: int | float | None
    id: int | None
    content: Content | None
    placeholders: Content


@dataclass(frozen=True, slots=True)
class ServedItem:
    """One item a worker handed to the model: the content its object decodes to, the content
    its placeholders come from, and what the client sent for it."""

    key: str
    tensor: Content
    placeholders: Content
    sent: Content


@dataclass(frozen=True, slots=True)
class Served:
    """One worker's read of a message: the fault (one of `SIGNATURE`, `STALE_ID`, or another
    error's text) or the items it served."""

    worker: int
    fault: str | None
    items: tuple[ServedItem, ...]


@dataclass(frozen=True, slots=True)
class ChunkView:
    """A live chunk of P0's ring: the object it holds, its bytes (header included), the
    handles issued for it, the reads its in-use flag counts, and whether P0 may free it."""

    id: int
    address: int | float
    key: str
    content: Content
    nbytes: int | float
    writers: int
    reads: int
    freeable: bool


@dataclass(frozen=True, slots=True)
class RingView:
    """P0's ring: live chunks by id, and the id and data ranges (model bytes)."""

    chunks: tuple[ChunkView, ...]
    id_start: int
    id_end: int
    data_start: int | float
    data_end: int | float


@dataclass(frozen=True, slots=True)
class Observation:
    """What one step shows: what it returned (`SentItem`s for a submit, None or the refusal
    for a client handle, `Served` for a check that raised and for the copy of a message's
    last item, None otherwise), P0's ring after it, and which
    of the handles issued so far P0 would accept back."""

    returned: object
    ring: RingView
    accepted: frozenset[HandleRef]

    def differences(self, other: Observation) -> list[str]:
        """The fields in which `other` differs from this one, named."""
        return [name for name in ("returned", "ring", "accepted")
                if getattr(self, name) != getattr(other, name)]


class ShmSide(Protocol):
    """One implementation instance under lockstep: P0 (the writer) and `config.readers`
    workers over one store. Messages are opaque to the runner, which keeps the engine's
    queue; every other method speaks model terms."""

    def submit(self, contents: Sequence[Content]) -> tuple[Any, tuple[SentItem, ...]]:
        """P0 processes one request of `contents`: the message it sends, and its items."""
        ...

    def client_handle(self, handle: HandleRef, placeholders: Content
                      ) -> tuple[Any | None, str | None]:
        """A client sends back `handle`: (the message P0 passes on, None) if P0 accepts it,
        (None, why) if it refuses it. Raises `lockstep.NotDriven` for a handle it never
        issued."""
        ...

    def accepts(self, handle: HandleRef) -> bool:
        """Whether P0 would accept `handle` back now (no side effect)."""
        ...

    def check(self, worker: int, message: Any, index: int) -> str | None:
        """Worker `worker` checks the handle of item `index` of `message` (the id check of
        the release's `get`, stopped before its copy): the fault's kind (`fault_kind`) if
        the check raises, else None."""
        ...

    def copy(self, worker: int, message: Any, index: int, sent: Content) -> ServedItem:
        """Worker `worker` copies item `index` of `message` (a handle it checked, or an
        inline item) and counts the read; the client sent `sent` for it."""
        ...

    def clear(self) -> None: ...

    def ring(self) -> RingView: ...

    def close(self) -> None: ...


class ShmAdapter(Protocol):
    """What `--adapter MODULE:FACTORY` returns for `--design shm`."""

    @property
    def name(self) -> str: ...

    def byte_map(self, config: ShmConfig) -> list[str]:
        """How model bytes map to the implementation's, one line each; raises
        `lockstep.Unmappable` for a configuration the map cannot state exactly."""
        ...

    def start(self, config: ShmConfig) -> ShmSide: ...


def spec_observation(config: ShmConfig, action: ShmAction, after: ShmState) -> Observation:
    """The spec's observation of `action`, which led to `after`."""
    return Observation(_spec_returned(after, action), spec_ring(config, after),
                       spec_accepted(after))


def _spec_returned(after: ShmState, action: ShmAction) -> object:
    if isinstance(action, Submit):
        return tuple(_sent(item) for item in after.queued[-1].items)
    if isinstance(action, Check | Copy):
        if after.fault is not None:
            return Served(action.worker, fault_kind(after.fault), ())
        if isinstance(action, Copy) and after.last_reads:  # the message's last item
            return Served(action.worker, None, tuple(
                ServedItem(r.key, r.tensor, r.placeholders, r.sent) for r in after.last_reads))
    return None


def _sent(item: Handle | Inline) -> SentItem:
    if isinstance(item, Handle):
        return SentItem(item.key, True, item.address, item.id, None, item.placeholders)
    return SentItem(item.key, False, None, None, item.content, item.content)


def fault_kind(text: str) -> str:
    """`SIGNATURE` or `STALE_ID` where `text` (the spec's fault, or an implementation's
    error message) says one of them, else `text`."""
    lowered = text.lower()
    if "signature" in lowered:
        return SIGNATURE
    if "modified or" in lowered and "invalid" in lowered:
        return STALE_ID
    return text


def spec_ring(config: ShmConfig, state: ShmState) -> RingView:
    """P0's ring as the spec has it (outside a request nothing is touched)."""
    ring = state.ring
    reads = ring_ops.reads_of(state.memory, ring.chunks, config.ring_bytes)
    chunks = tuple(ChunkView(c.id, c.address, c.key, c.content, c.nbytes, c.writers,
                             reads[c.id], reads[c.id] >= c.writers * config.readers)
                   for c in ring.chunks)
    return RingView(chunks, ring.id_start, ring.id_end, ring.data_start, ring.data_end)


def spec_accepted(state: ShmState) -> frozenset[HandleRef]:
    """The issued handles P0 would accept back."""
    return frozenset(ref_of(h) for h in state.issued if sender.accepts(state.ring, h))


def ref_of(handle: Handle) -> HandleRef:
    return HandleRef(handle.key, handle.address, handle.id, handle.epoch)


def issued_refs(state: ShmState) -> tuple[HandleRef, ...]:
    """Every handle P0 issued so far, in a fixed order."""
    return tuple(sorted((ref_of(h) for h in state.issued), key=repr))


def client_action(action: ShmAction) -> tuple[HandleRef, Content] | None:
    """(the handle, its placeholders) of a client handle action, else None."""
    if isinstance(action, ClientHandle):
        return ref_of(action.handle), action.handle.placeholders
    return None


def breaks(prop_id: str, config: ShmConfig, observation: Observation, fault: str | None,
           quiescent: bool) -> list[str]:
    """Why the step `observation` saw breaks the design's property `prop_id`, judged on the
    observation alone (`fault`: the engine's fault so far; `quiescent`: nothing in flight);
    empty: it holds there. Each check says what the spec's check of the same id says
    (`spec.designs.shm.properties`)."""
    served = observation.returned if isinstance(observation.returned, Served) else None
    items = served.items if served is not None else ()
    if prop_id == "S1":
        return [f"{i.key}: object of {i.tensor} paired with placeholders of {i.placeholders}"
                for i in items if i.tensor != i.placeholders]
    if prop_id == "S2":
        return _outside(config, observation.ring)
    if prop_id == "S3":
        return [] if fault is None else [f"a worker raised: {fault}"]
    if prop_id == "S4":
        return [f"{i.key}: the client sent {i.sent}, the model got {i.tensor}"
                for i in items if i.tensor != i.sent]
    if prop_id == "H1":
        return [f"a handle did not resolve: {fault}"] if fault in (SIGNATURE, STALE_ID) else []
    if prop_id == "U1":
        return _pinned(config, observation.ring) if quiescent and fault is None else []
    raise KeyError(f"the shm design has no property {prop_id!r}")


def _outside(config: ShmConfig, ring: RingView) -> list[str]:
    size = config.ring_bytes
    reasons = []
    if ring.data_end - ring.data_start > size:
        reasons.append(f"the data range {ring.data_start}..{ring.data_end} spans more than "
                       f"{size}")
    spans = sorted((c.address % size, c.address % size + c.nbytes, c.id) for c in ring.chunks)
    reasons += [f"chunk #{i} ends at {high}, past {size}" for _, high, i in spans if high > size]
    reasons += [f"chunks #{a} and #{b} overlap"
                for (_, high, a), (low, _, b) in itertools.pairwise(spans)
                if low < high]
    return reasons


def _pinned(config: ShmConfig, ring: RingView) -> list[str]:
    return [f"chunk #{c.id} ({c.key!r}) pinned: {c.reads} reads of {c.writers} issued "
            f"handle(s) x {config.readers} readers, and nothing in flight"
            for c in ring.chunks if not c.freeable]
