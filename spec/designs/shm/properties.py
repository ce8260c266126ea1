"""The shared-memory design's properties, stated over its own state. S1-S4 and H1 keep the
catalogue's meaning; U1 is this design's own: the store stays usable.

A claim about "forever" is checked as a claim about one state: U1 is asked of every
quiescent state (no request queued, executing, or unread by a worker), where no reader
will ever read again what is in flight, because nothing is.
"""

from __future__ import annotations

from itertools import pairwise

from spec.designs.base import DesignProperty, Scope
from spec.designs.shm import ring as ring_ops
from spec.designs.shm.config import ShmConfig
from spec.designs.shm.state import ShmState


def consistent_pairing(config: ShmConfig, state: ShmState) -> list[str]:
    """Every item a worker hands to the model pairs an object and placeholders that come from
    the processing of the same content (a handle reads exactly the object P0 signed)."""
    return [f"request {r.rid} item {r.key!r} (worker {r.worker}): object of {_name(r.tensor)} "
            f"paired with placeholders of {_name(r.placeholders)}"
            for r in state.last_reads if r.tensor != r.placeholders]


def within_ring(config: ShmConfig, state: ShmState) -> list[str]:
    """The live chunks fit the ring: their data range spans at most the ring's bytes, each
    lies within the buffer, and no two overlap (S2 stated over the ring)."""
    ring, size = state.ring, config.ring_bytes
    reasons = []
    if ring.data_end - ring.data_start > size:
        reasons.append(f"the data range {ring.data_start}..{ring.data_end} spans more than "
                       f"the ring's {size} bytes")
    spans = sorted((c.address % size, c.address % size + c.nbytes, c.id) for c in ring.chunks)
    for _, high, chunk_id in spans:
        if high > size:
            reasons.append(f"chunk #{chunk_id} ends at {high}, past the ring's {size} bytes")
    for (_, high, first), (low, _, second) in pairwise(spans):
        if low < high:
            reasons.append(f"chunks #{first} and #{second} overlap")
    return reasons


def no_crash(config: ShmConfig, state: ShmState) -> list[str]:
    """No worker raised: the engine is alive (a handle a worker cannot resolve raises inside
    the model's execution, which kills the engine)."""
    return [] if state.fault is None else [state.fault]


def served_is_sent(config: ShmConfig, state: ShmState) -> list[str]:
    """The object a worker hands to the model is the content the client sent for that item."""
    return [f"request {r.rid} item {r.key!r}: the client sent {_name(r.sent)}, the model got "
            f"{_name(r.tensor)}" for r in state.last_reads if r.tensor != r.sent]


def handles_resolve(config: ShmConfig, state: ShmState) -> list[str]:
    """Every handle a worker reads resolves to the chunk P0 issued it for: its signature
    verifies under the store's secret and the header at its address carries its id."""
    return [state.fault] if state.fault is not None and "handle" in state.fault else []


def usable(config: ShmConfig, state: ShmState) -> list[str]:
    """When nothing is in flight, no chunk is pinned: every live chunk has been read as often
    as its handles were issued, by every reader, so P0 can free it (a chunk pinned with
    nothing in flight stays pinned forever, and FIFO freeing stops at it: from then on the
    store takes less and less, and P0 sends items inline)."""
    if state.fault is not None:
        return []
    reads = ring_ops.reads_of(state.memory, state.ring.chunks, config.ring_bytes)
    return [f"chunk #{c.id} ({c.key!r}) pinned: {reads[c.id]} reads of {c.writers} issued "
            f"handle(s) x {config.readers} readers, and nothing in flight"
            for c in state.ring.chunks if reads[c.id] < c.writers * config.readers]


def _name(content: object) -> str:
    identity = getattr(content, "identity", "?")
    version = getattr(content, "version", 0)
    if version < 0:
        return "overwritten bytes"
    return f"{identity}.v{version}"


def _property(prop_id: str, title: str, check: object, scope: Scope = Scope.EVERY_STATE
              ) -> DesignProperty:
    statement = (getattr(check, "__doc__", "") or "").strip()
    return DesignProperty(prop_id, title, " ".join(statement.split()), scope,
                          check)  # type: ignore[arg-type]


PROPERTIES: tuple[DesignProperty, ...] = (
    _property("S1", "consistent pairing", consistent_pairing),
    _property("S2", "within the ring", within_ring),
    _property("S3", "no crash", no_crash),
    _property("S4", "served is sent", served_is_sent),
    _property("H1", "handles resolve", handles_resolve),
    _property("U1", "the store stays usable", usable, Scope.QUIESCENT),
)
