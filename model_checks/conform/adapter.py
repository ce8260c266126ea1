"""The adapter interface: how any sender/receiver pair is put under the conformance checks.

An implementation is seen through two small sides, each a typed `Protocol`:

- `FrontEndSide` (P0): `probe` a request, `update` it into a message, `abandon` it, take a
  `handle_reply`, `clear` or `restart`, and show its shadow (`shadow`).
- `EngineSide` (P1): `receive` a message, `clear` or `restart`, and show its cache
  (`receiver`).

An `Adapter` builds them from a `Setup` (budget, variant name, number of front ends, and the
harness's processor). Everything that crosses the interface is a plain value defined here
(`WireMessage`, `Delivered`, ...), never an implementation's own class, so the harness can
keep the channel between the sides itself: reorder it (D1), transform payloads on it (D9), or
serialise it across a process boundary (`model_checks.conform.remote`).

Failures are values too: `ClientRejected` (a non-retryable client error, e.g. a UUID-only item
P0 does not hold), `Missed` (the retryable miss error and the identities it lists) and `Fault`
(an assertion, a crash or a hang). An exception that escapes an adapter is treated by the
harness as a crash of that side. `clear` and `restart` may return a `Fault` too (a livelock
inside them is a hang: across processes the harness's timeout reports it; in one process the
adapter must bound it and return `Fault("hang", ...)`).

`HarnessFailure` is the one exception that is never the implementation's: the harness itself
could not do its work (the engine process died, was stopped, never started, or broke the
wire protocol). A run that meets one stops with its own outcome and exit code (3), never an
S3 of the implementation. See docs/conformance.md for how to write an adapter.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeAlias, runtime_checkable

import torch

Payload: TypeAlias = Mapping[str, torch.Tensor]
"""A payload: tensors by name (flat)."""

Process: TypeAlias = Callable[[torch.Tensor], tuple[dict[str, torch.Tensor], tuple[int, int]]]
"""The harness's processor: raw media -> (payload, (placeholder offset, placeholder length))."""


class EvictionHang(RuntimeError):
    """Raised by an implementation (or a mutant) whose eviction loop stopped making progress;
    adapters report it as `Fault("hang", ...)`."""


class HarnessFailure(RuntimeError):
    """The harness could not run the check (not the implementation's fault): a dead, stopped
    or never-started engine process, or a broken wire protocol between the processes."""


class SideFault(Exception):
    """Raised by a side's view (`receiver`, `shadow`) whose implementation faulted while the
    harness read it (across processes: a crash or a hang in the child); carries the `Fault`."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(f"{fault.kind}: {fault.detail}")
        self.fault = fault


@dataclass(frozen=True, slots=True)
class Setup:
    """What an adapter is built from.

    budget: the byte budget of every cache; variant: "V0".."V3" (the spec's names and
    meanings); front_ends: how many front ends share the engine; process: the processor every
    front end must use (deterministic: equal media give equal tensors and placeholders).
    """

    budget: int
    variant: str
    front_ends: int
    process: Process


@dataclass(frozen=True, slots=True)
class ItemIn:
    """One item as the client sends it: its identity and raw media (None: UUID only)."""

    identity: str
    media: torch.Tensor | None


@dataclass(frozen=True, slots=True, eq=False)
class WireItem:
    """One item of a message P0 -> P1: payload (None: a reference), placeholders as
    (offset, length), and the tag (None in untagged variants)."""

    identity: str
    payload: Payload | None
    placeholders: tuple[int, int]
    tag: int | None


@dataclass(frozen=True, slots=True, eq=False)
class WireMessage:
    """What one front end sends to the engine for one request attempt. `request_id` is the
    front end's own id for the attempt; the harness only passes it back."""

    request_id: int
    items: tuple[WireItem, ...]


@dataclass(frozen=True, slots=True, eq=False)
class ModelInput:
    """One item the engine hands to the model: identity, tensors, placeholders."""

    identity: str
    payload: Payload
    placeholders: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ShadowEntry:
    """One entry of a front end's shadow, least recent first in `FrontEndSide.shadow`."""

    identity: str
    size: int
    placeholders: tuple[int, int]
    tag: int | None


@dataclass(frozen=True, slots=True, eq=False)
class ReceiverEntry:
    """One entry of the engine's cache, least recent first in `EngineSide.receiver`."""

    identity: str
    size: int
    payload: Payload
    tag: int | None


@dataclass(frozen=True, slots=True)
class ClientRejected:
    """A non-retryable client error (e.g. UUID-only items P0 does not hold)."""

    identities: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Missed:
    """The engine's retryable miss error and the identities it lists."""

    identities: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Fault:
    """A side stopped: kind is "engine-crash" (P1's assertion on a miss), "p0-assert" (a
    probed hit gone at update time, no data), "hang" (eviction made no progress) or "crash"
    (anything else, e.g. an unexpected exception)."""

    kind: str
    detail: str


@dataclass(frozen=True, slots=True, eq=False)
class Served:
    """The engine handed these inputs to the model, one per item, in request order."""

    inputs: tuple[ModelInput, ...]


Delivered: TypeAlias = Served | Missed | Fault
"""What `EngineSide.receive` returns."""


@runtime_checkable
class FrontEndSide(Protocol):
    """P0 as the harness sees it. Every call is atomic."""

    def probe(self, items: tuple[ItemIn, ...]) -> object | ClientRejected:
        """Probe the shadow (no reordering) and process the missed items; return an opaque
        handle for `update`/`abandon`, or ClientRejected (nothing changed)."""
        ...

    def update(self, probed: object) -> WireMessage | ClientRejected | Fault:
        """Touch the request's identities, update the shadow per item, build the message."""
        ...

    def abandon(self, request_id: int) -> None:
        """The updated request is rejected before it reaches the engine (D2)."""
        ...

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        """The engine's reply: empty `missed` is success; otherwise invalidate `missed`."""
        ...

    def clear(self) -> Fault | None:
        """Clear the shadow; a `Fault` (or None) says how it went."""
        ...

    def restart(self) -> Fault | None:
        """The process restarts: the shadow is lost; replies to earlier requests may still
        arrive and are handled as the spec says (invalidate what they list)."""
        ...

    def shadow(self) -> tuple[ShadowEntry, ...]: ...


@runtime_checkable
class ClientRetry(Protocol):
    """Optional, on a front-end side: the implementation's own client retry. Given the items
    of the attempt that missed and the media of every identity, return the items the client
    resends. Without it the harness resends media on every item itself."""

    def retry_items(
        self, items: tuple[ItemIn, ...], media: Mapping[str, torch.Tensor]
    ) -> tuple[ItemIn, ...]: ...


@runtime_checkable
class EngineSide(Protocol):
    """P1 as the harness sees it."""

    def receive(self, message: WireMessage) -> Delivered: ...

    def clear(self) -> Fault | None:
        """Drop every cached payload; a `Fault` (or None) says how it went."""
        ...

    def restart(self) -> Fault | None:
        """The process restarts: the cache is lost."""
        ...

    def receiver(self) -> tuple[ReceiverEntry, ...]: ...

    def close(self) -> None:
        """Release resources (processes, sockets); called once, also after a failure."""
        ...


@runtime_checkable
class Adapter(Protocol):
    """Builds the sides of one implementation. `name` labels reports."""

    name: str

    def supports(self, variant: str) -> bool:
        """Whether the implementation has this variant ("V0".."V3")."""
        ...

    def front_end(self, setup: Setup, index: int) -> FrontEndSide: ...

    def engine(self, setup: Setup) -> EngineSide: ...


def load_adapter(path: str) -> Adapter:
    """`module:factory` -> the adapter the factory returns; ValueError saying what is wrong."""
    module_name, sep, attribute = path.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"got adapter {path!r}, expected module:factory")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"cannot import {module_name!r}: {error}") from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise ValueError(f"{module_name!r} has no callable {attribute!r}")
    made = factory()
    if not isinstance(made, Adapter):
        raise ValueError(f"{path} returned {type(made).__name__}, expected an Adapter "
                         "(name, supports, front_end, engine)")
    return made
