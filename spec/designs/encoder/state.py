"""The state of the encoder-cache design: the scheduler's manager (identity -> number of
embeddings, the requests that reference each entry, the order entries became freeable), the
workers' encoder outputs (identity -> the content they were computed from), and the requests
in the engine.

The manager's entry and the workers' output of one identity are kept in one `Entry`: the
release updates both in the same scheduling step (the freed identities travel with the
scheduler output, and the workers drop them before they run the encoder), so they are
present together or absent together; what can differ is their content: the manager sizes an
entry by the request's placeholders, the workers compute the output from the request's data.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace

from spec.config import Content


class Stage(enum.Enum):
    """Where a request is in the engine."""

    WAITING = "waiting"  # items left to schedule
    RUNNING = "running"  # a chunk scheduled, its tokens not yet computed
    DONE = "done"

    def __repr__(self) -> str:
        return f"Stage.{self.name}"

    __hash__ = object.__hash__  # members are singletons


class Outcome(enum.Enum):
    SUCCESS = "success"
    REJECTED = "rejected"  # the scheduler's guard: an error for this request, the engine lives

    def __repr__(self) -> str:
        return f"Outcome.{self.name}"

    __hash__ = object.__hash__


@dataclass(frozen=True, slots=True)
class Item:
    """One multimodal item of a request as it reaches the engine: its identity (mm hash), the
    content its data was processed from (what the encoder runs on), the content its
    placeholders were processed from (their number: the embeddings the model expects), and
    the content the client sent. Without a processor cache in front, the three agree."""

    identity: str
    tensor: Content
    placeholders: Content
    sent: Content


@dataclass(frozen=True, slots=True)
class EngineRequest:
    """One request in the engine: items before `scheduled` have had their chunk scheduled;
    `chunk`, while running, the items of the chunk in flight."""

    rid: int
    items: tuple[Item, ...]
    scheduled: int = 0
    stage: Stage = Stage.WAITING
    outcome: Outcome | None = None
    chunk: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Entry:
    """One identity in the encoder cache: the manager's number of embeddings (the
    placeholders of the request that allocated it), the requests referencing it, and the
    content the workers' output was computed from."""

    identity: str
    embeds: int
    output: Content
    refs: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Consumed:
    """One item the model consumed: the encoder output's content and the placeholders'."""

    rid: int
    identity: str
    embeddings: Content
    placeholders: Content
    sent: Content


@dataclass(frozen=True, slots=True)
class EncoderState:
    """The whole design. `entries` in allocation order; `freeable`: identities with no
    reference, oldest first (eviction order); `fault`: why the engine died, if it did;
    `last_consumed`: what the last step's model consumed, read by the properties on arrival
    and not part of the state's identity."""

    entries: tuple[Entry, ...] = ()
    freeable: tuple[str, ...] = ()
    requests: tuple[EngineRequest, ...] = ()
    fault: str | None = None
    last_consumed: tuple[Consumed, ...] = field(default=(), compare=False)

    def evolve(self, **changes: object) -> EncoderState:
        return replace(self, **changes)  # type: ignore[arg-type]

    def entry(self, identity: str) -> Entry | None:
        return next((e for e in self.entries if e.identity == identity), None)

    def with_request(self, request: EngineRequest) -> EncoderState:
        rid = request.rid
        return self.evolve(requests=(*self.requests[:rid], request,
                                     *self.requests[rid + 1:]))
