"""The system's state: frozen, hashable values whose reprs are valid Python.

Processings are identified by their index in `State.processings` (a processing id, "pid"). A
shadow entry holding pid x records x's placeholders; a receiver entry holding pid x holds x's
tensor; a wire item names the pid of its payload (if any) and of its placeholders. Two pids
describe the same content when their processings have equal `content` (processing is
deterministic), which is what S1 compares.

The state keeps only the last delivery to the model, not a history: safety properties are
checked after every step, so the last delivery is all they need, and states stay small enough
for checkers to deduplicate.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from spec.config import Content
from spec.lru import Lru
from spec.values import init_values, quick_init


class _Keep(enum.Enum):
    """The default of an `evolve` argument whose field may legitimately be set to None."""

    KEEP = "keep"


KEEP = _Keep.KEEP


class Stage(enum.Enum):
    """Where a request's current attempt is."""

    SUBMITTED = "submitted"  # waiting for P0
    PROCESSED = "processed"  # probed and processed, not yet updated (D6 only)
    UPDATING = "updating"  # some items updated, the rest pending (D6 only)
    IN_FLIGHT = "in-flight"  # sent; P1 or the reply has not come back yet
    DONE = "done"  # an outcome is set

    def __repr__(self) -> str:
        return f"Stage.{self.name}"

    # Members are singletons, so identity is equality: hash by identity, in C, rather than
    # Enum's own Python-level hash of the name (states hash their requests' stages often).
    __hash__ = object.__hash__


class Outcome(enum.Enum):
    """How a request attempt ended."""

    SUCCESS = "success"
    MISS = "miss"  # retryable: P1 reported missed identities
    CLIENT_ERROR = "client-error"  # non-retryable: a UUID-only item missed at P0
    REJECTED = "rejected"  # non-retryable: rejected or aborted after P0 updated (D2)
    P0_ASSERT = "p0-assert"  # non-retryable server error: P0's assertion fired for this request

    def __repr__(self) -> str:
        return f"Outcome.{self.name}"

    __hash__ = object.__hash__  # members are singletons: see `spec.state.Stage`

    @property
    def final_for_client(self) -> bool:
        """True for outcomes L4 accepts as an end: success or a clear client error. P0's
        assertion is an internal server error, neither: it fails L4 for that request."""
        return self in (Outcome.SUCCESS, Outcome.CLIENT_ERROR, Outcome.REJECTED)


class FaultKind(enum.Enum):
    ENGINE_CRASH = "engine-crash"  # P1 found neither data nor entry (V0's assertion)
    HANG = "hang"  # eviction made no progress (ghost keys)

    def __repr__(self) -> str:
        return f"FaultKind.{self.name}"

    __hash__ = object.__hash__  # members are singletons: see `spec.state.Stage`


@dataclass(frozen=True, slots=True)
class Fault:
    kind: FaultKind
    detail: str

    def __init__(self, kind: FaultKind, detail: str) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "detail", detail)

    def __reduce__(self) -> tuple[type[Fault], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Fault:
            return NotImplemented
        return (self.kind, self.detail) == (other.kind, other.detail)

    def __hash__(self) -> int:
        return hash((self.kind, self.detail))


@dataclass(frozen=True, slots=True)
class ClientItem:
    """One item as the client sends it: identity, which content, and whether media is attached
    (False: UUID only, trusting the server to have it)."""

    identity: str
    version: int = 0
    has_data: bool = True

    def __init__(self, identity: str, version: int = 0, has_data: bool = True) -> None:
        object.__setattr__(self, "identity", identity)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "has_data", has_data)

    def __reduce__(self) -> tuple[type[ClientItem], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not ClientItem:
            return NotImplemented
        return (self.identity, self.version, self.has_data) == (other.identity, other.version,
                other.has_data)

    def __hash__(self) -> int:
        return hash((self.identity, self.version, self.has_data))

    @property
    def content(self) -> Content:
        return Content(self.identity, self.version)


@dataclass(frozen=True, slots=True)
class WireItem:
    """One item of a message P0 -> P1: the payload's pid or None, the placeholders' pid, tag."""

    identity: str
    data: int | None
    placeholders: int
    tag: int | None = None

    def __init__(self, identity: str, data: int | None, placeholders: int,
                 tag: int | None = None) -> None:
        object.__setattr__(self, "identity", identity)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "placeholders", placeholders)
        object.__setattr__(self, "tag", tag)

    def __reduce__(self) -> tuple[type[WireItem], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not WireItem:
            return NotImplemented
        return (self.identity, self.data, self.placeholders, self.tag) == (other.identity,
                other.data, other.placeholders, other.tag)

    def __hash__(self) -> int:
        return hash((self.identity, self.data, self.placeholders, self.tag))


@dataclass(frozen=True, slots=True)
class Message:
    """One message P0 -> P1. `engine` is the router's choice (the engine whose receiver
    handles it); always 0 with one engine."""

    rid: int
    front_end: int
    items: tuple[WireItem, ...]
    engine: int = 0

    def __init__(self, rid: int, front_end: int, items: tuple[WireItem, ...],
                 engine: int = 0) -> None:
        object.__setattr__(self, "rid", rid)
        object.__setattr__(self, "front_end", front_end)
        object.__setattr__(self, "items", items)
        object.__setattr__(self, "engine", engine)

    def __reduce__(self) -> tuple[type[Message], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Message:
            return NotImplemented
        return (self.rid, self.front_end, self.items, self.engine) == (other.rid, other.front_end,
                other.items, other.engine)

    def __hash__(self) -> int:
        return hash((self.rid, self.front_end, self.items, self.engine))


@dataclass(frozen=True, slots=True)
class Reply:
    """P1 -> P0: empty `missed` is success; otherwise the retryable miss error's identities."""

    rid: int
    front_end: int
    missed: tuple[str, ...]

    def __init__(self, rid: int, front_end: int, missed: tuple[str, ...]) -> None:
        object.__setattr__(self, "rid", rid)
        object.__setattr__(self, "front_end", front_end)
        object.__setattr__(self, "missed", missed)

    def __reduce__(self) -> tuple[type[Reply], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Reply:
            return NotImplemented
        return (self.rid, self.front_end, self.missed) == (other.rid, other.front_end, other.missed)

    def __hash__(self) -> int:
        return hash((self.rid, self.front_end, self.missed))


@dataclass(frozen=True, slots=True)
class P0Work:
    """P0's working record for a request attempt between probe and send.

    hits: identities the probe found in the shadow (not processed).
    processed: pid per item (None for probed hits).
    order: item indices in update order, fixed when the update starts (empty before).
    done: how many of `order` are updated; wire: wire items built so far, in request order
    once complete.
    """

    hits: frozenset[str]
    processed: tuple[int | None, ...]
    order: tuple[int, ...]
    done: int = 0
    wire: tuple[tuple[int, WireItem], ...] = ()

    def __init__(self, hits: frozenset[str], processed: tuple[int | None, ...],
                 order: tuple[int, ...], done: int = 0,
                 wire: tuple[tuple[int, WireItem], ...] = ()) -> None:
        object.__setattr__(self, "hits", hits)
        object.__setattr__(self, "processed", processed)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "done", done)
        object.__setattr__(self, "wire", wire)

    def __reduce__(self) -> tuple[type[P0Work], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not P0Work:
            return NotImplemented
        return (self.hits, self.processed, self.order, self.done, self.wire) == (other.hits,
                other.processed, other.order, other.done, other.wire)

    def __hash__(self) -> int:
        return hash((self.hits, self.processed, self.order, self.done, self.wire))


@dataclass(frozen=True, slots=True)
class Request:
    rid: int
    front_end: int
    items: tuple[ClientItem, ...]
    retries: int = 0
    stage: Stage = Stage.SUBMITTED
    outcome: Outcome | None = None
    missed: tuple[str, ...] = ()
    work: P0Work | None = None

    def __init__(self, rid: int, front_end: int, items: tuple[ClientItem, ...], retries: int = 0,
                 stage: Stage = Stage.SUBMITTED, outcome: Outcome | None = None,
                 missed: tuple[str, ...] = (), work: P0Work | None = None) -> None:
        object.__setattr__(self, "rid", rid)
        object.__setattr__(self, "front_end", front_end)
        object.__setattr__(self, "items", items)
        object.__setattr__(self, "retries", retries)
        object.__setattr__(self, "stage", stage)
        object.__setattr__(self, "outcome", outcome)
        object.__setattr__(self, "missed", missed)
        object.__setattr__(self, "work", work)

    def __reduce__(self) -> tuple[type[Request], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Request:
            return NotImplemented
        return (self.rid, self.front_end, self.items, self.retries, self.stage, self.outcome,
                self.missed, self.work) == (other.rid, other.front_end, other.items, other.retries,
                other.stage, other.outcome, other.missed, other.work)

    def __hash__(self) -> int:
        return hash((self.rid, self.front_end, self.items, self.retries, self.stage, self.outcome,
                     self.missed, self.work))

    def evolve(
        self,
        *,
        items: tuple[ClientItem, ...] | None = None,
        stage: Stage | None = None,
        outcome: Outcome | _Keep | None = KEEP,
        missed: tuple[str, ...] | None = None,
        work: P0Work | _Keep | None = KEEP,
    ) -> Request:
        """This request with the given fields changed (`dataclasses.replace` without its
        per-call introspection: a step's hot path)."""
        return Request(
            self.rid,
            self.front_end,
            self.items if items is None else items,
            self.retries,
            self.stage if stage is None else stage,
            self.outcome if isinstance(outcome, _Keep) else outcome,
            self.missed if missed is None else missed,
            self.work if isinstance(work, _Keep) else work,
        )


@dataclass(frozen=True, slots=True)
class Processing:
    """One run of P0's processor: identity, content version, and the pid is its index."""

    identity: str
    version: int

    def __init__(self, identity: str, version: int) -> None:
        object.__setattr__(self, "identity", identity)
        object.__setattr__(self, "version", version)

    def __reduce__(self) -> tuple[type[Processing], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Processing:
            return NotImplemented
        return (self.identity, self.version) == (other.identity, other.version)

    def __hash__(self) -> int:
        return hash((self.identity, self.version))

    @property
    def content(self) -> Content:
        return Content(self.identity, self.version)


@dataclass(frozen=True, slots=True)
class Served:
    """One item P1 handed to the model: tensor of pid `tensor`, placeholders of pid
    `placeholders`, for a request whose client sent content version `sent_version`."""

    rid: int
    identity: str
    tensor: int
    placeholders: int
    sent_version: int

    def __init__(self, rid: int, identity: str, tensor: int, placeholders: int,
                 sent_version: int) -> None:
        object.__setattr__(self, "rid", rid)
        object.__setattr__(self, "identity", identity)
        object.__setattr__(self, "tensor", tensor)
        object.__setattr__(self, "placeholders", placeholders)
        object.__setattr__(self, "sent_version", sent_version)

    def __reduce__(self) -> tuple[type[Served], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Served:
            return NotImplemented
        return (self.rid, self.identity, self.tensor, self.placeholders, self.sent_version) == (
                other.rid, other.identity, other.tensor, other.placeholders, other.sent_version)

    def __hash__(self) -> int:
        return hash((self.rid, self.identity, self.tensor, self.placeholders, self.sent_version))


@dataclass(frozen=True, slots=True)
class Delivery:
    """What the last P1 step did with one message: served items, or the identities that missed
    (all of them, before the variant decides how many to report)."""

    message: Message
    served: tuple[Served, ...]
    missed: tuple[str, ...]

    def __init__(self, message: Message, served: tuple[Served, ...],
                 missed: tuple[str, ...]) -> None:
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "served", served)
        object.__setattr__(self, "missed", missed)

    def __reduce__(self) -> tuple[type[Delivery], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Delivery:
            return NotImplemented
        return (self.message, self.served, self.missed) == (other.message, other.served,
                other.missed)

    def __hash__(self) -> int:
        return hash((self.message, self.served, self.missed))


@dataclass(frozen=True, slots=True)
class State:
    """The whole system. `receiver` is engine 0's receiver cache; `other_receivers` holds the
    receivers of engines 1.. (the router configuration of D5, `Config.engines`), empty with
    one engine, so that a single-engine state keeps its shape for every checker and adapter
    that reads `receiver`. `receiver_of`/`with_receiver` address any engine."""

    shadows: tuple[Lru, ...]
    receiver: Lru = ()
    processings: tuple[Processing, ...] = ()
    requests: tuple[Request, ...] = ()
    to_engine: tuple[Message, ...] = ()
    to_front_end: tuple[Reply, ...] = ()
    reset_pending: bool = False
    last_delivery: Delivery | None = None
    fault: Fault | None = None
    other_receivers: tuple[Lru, ...] = ()

    def __init__(self, shadows: tuple[Lru, ...], receiver: Lru = (),
                 processings: tuple[Processing, ...] = (), requests: tuple[Request, ...] = (),
                 to_engine: tuple[Message, ...] = (), to_front_end: tuple[Reply, ...] = (),
                 reset_pending: bool = False, last_delivery: Delivery | None = None,
                 fault: Fault | None = None, other_receivers: tuple[Lru, ...] = ()) -> None:
        object.__setattr__(self, "shadows", shadows)
        object.__setattr__(self, "receiver", receiver)
        object.__setattr__(self, "processings", processings)
        object.__setattr__(self, "requests", requests)
        object.__setattr__(self, "to_engine", to_engine)
        object.__setattr__(self, "to_front_end", to_front_end)
        object.__setattr__(self, "reset_pending", reset_pending)
        object.__setattr__(self, "last_delivery", last_delivery)
        object.__setattr__(self, "fault", fault)
        object.__setattr__(self, "other_receivers", other_receivers)

    def __reduce__(self) -> tuple[type[State], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not State:
            return NotImplemented
        return (self.shadows, self.receiver, self.processings, self.requests, self.to_engine,
                self.to_front_end, self.reset_pending, self.last_delivery, self.fault,
                self.other_receivers) == (other.shadows, other.receiver, other.processings,
                other.requests, other.to_engine, other.to_front_end, other.reset_pending,
                other.last_delivery, other.fault, other.other_receivers)

    def __hash__(self) -> int:
        return hash((self.shadows, self.receiver, self.processings, self.requests, self.to_engine,
                     self.to_front_end, self.reset_pending, self.last_delivery, self.fault,
                     self.other_receivers))

    def evolve(
        self,
        *,
        shadows: tuple[Lru, ...] | None = None,
        receiver: Lru | None = None,
        processings: tuple[Processing, ...] | None = None,
        requests: tuple[Request, ...] | None = None,
        to_engine: tuple[Message, ...] | None = None,
        to_front_end: tuple[Reply, ...] | None = None,
        reset_pending: bool | None = None,
        last_delivery: Delivery | _Keep | None = KEEP,
        fault: Fault | _Keep | None = KEEP,
        other_receivers: tuple[Lru, ...] | None = None,
    ) -> State:
        """This state with the given fields changed: `dataclasses.replace`, typed the same
        way, without its per-call introspection (every step builds a state or several)."""
        return State(
            self.shadows if shadows is None else shadows,
            self.receiver if receiver is None else receiver,
            self.processings if processings is None else processings,
            self.requests if requests is None else requests,
            self.to_engine if to_engine is None else to_engine,
            self.to_front_end if to_front_end is None else to_front_end,
            self.reset_pending if reset_pending is None else reset_pending,
            self.last_delivery if isinstance(last_delivery, _Keep) else last_delivery,
            self.fault if isinstance(fault, _Keep) else fault,
            self.other_receivers if other_receivers is None else other_receivers,
        )

    def receivers(self) -> tuple[Lru, ...]:
        """Every engine's receiver, engine 0 first."""
        return (self.receiver, *self.other_receivers)

    def receiver_of(self, engine: int) -> Lru:
        return self.receiver if engine == 0 else self.other_receivers[engine - 1]

    def with_receiver(self, engine: int, receiver: Lru) -> State:
        if engine == 0:
            return self.evolve(receiver=receiver)
        others = list(self.other_receivers)
        others[engine - 1] = receiver
        return self.evolve(other_receivers=tuple(others))

    def without_receivers(self) -> State:
        """Every engine's receiver emptied."""
        return self.evolve(receiver=(), other_receivers=((),) * len(self.other_receivers))

    def queue_of(self, engine: int) -> tuple[int, ...]:
        """Indices into `to_engine` of the messages routed to `engine`, oldest first: each
        engine takes its own messages in order (any of them under D1)."""
        return tuple(i for i, m in enumerate(self.to_engine) if m.engine == engine)

    def with_request(self, request: Request) -> State:
        rid = request.rid
        return self.evolve(requests=(*self.requests[:rid], request, *self.requests[rid + 1 :]))

    def with_shadow(self, front_end: int, shadow: Lru) -> State:
        shadows = self.shadows
        return self.evolve(shadows=(*shadows[:front_end], shadow, *shadows[front_end + 1 :]))

    def unfinished(self) -> int:
        return sum(1 for r in self.requests if r.stage is not Stage.DONE)


def initial_state(front_ends: int, engines: int = 1) -> State:
    return State(shadows=((),) * front_ends, other_receivers=((),) * (engines - 1))


# Called here, not as a class decorator: mypyc compiles a class with any decorator but
# `dataclass` as a non-native one (see `spec.values`).
for _value in (Fault, ClientItem, WireItem, Message, Reply, P0Work, Request, Processing, Served,
               Delivery, State):
    quick_init(_value)
