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
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

from model_checks.conform.exits import HarnessFailure as HarnessFailure
from model_checks.conform.payload import Payload as Payload
from model_checks.conform.payload import Process as Process

if TYPE_CHECKING:
    import torch


class EvictionHang(RuntimeError):
    """Raised by an implementation (or a mutant) whose eviction loop stopped making progress;
    adapters report it as `Fault("hang", ...)`."""


ADAPTER_API = 2
"""The version of this interface. `load_adapter` checks an adapter against it (its methods
and their parameters); an adapter may state the version it was written for as `api_version`,
and one that states another is refused. Version 2: the sides as below, `Setup.process`;
optional on a front-end side: `ItemUpdates`, `ClientLoop`, `ClientRetry`, `EndToEnd`; on an
engine side: `Refuses`."""


class AdapterError(ValueError):
    """The adapter does not match the interface, or a factory or adapter call raised while the
    sides were built: a usage error (exit 2), one line naming the call, the exception type and
    its message; the same in one process and two."""


def raised(call: str, error: BaseException) -> AdapterError:
    """`call` raised `error`: the one-line AdapterError for it."""
    message = " ".join(str(error).split())
    return AdapterError(f"{call} raised {type(error).__name__}" + (f": {message}" if message
                                                                   else ""))


class SideFault(Exception):
    """Raised by a side's view (`receiver`, `shadow`) whose implementation faulted while the
    harness read it (across processes: a crash or a hang in the child); carries the `Fault`."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(f"{fault.kind}: {fault.detail}")
        self.fault = fault


@dataclass(frozen=True, slots=True)
class Setup:
    """What an adapter is built from.

    budget: the byte budget of every cache; variant: "V0".."V4" (the spec's names and
    meanings); front_ends: how many front ends share the engine; process: the processor every
    front end must use (deterministic: equal media give equal tensors and placeholders).
    """

    budget: int
    variant: str
    front_ends: int
    process: Process


@dataclass(frozen=True, slots=True)
class ItemIn:
    """One item as the client sends it: `identity` (the content hash or the client's UUID)
    and `media`, the raw media tensor the harness made (None: the client sent the identity
    only). The front end passes `media` to `Setup.process` on a miss."""

    identity: str
    media: torch.Tensor | None


@dataclass(frozen=True, slots=True, eq=False)
class WireItem:
    """One item of a message P0 -> P1: `identity`; `payload`, the processed tensors by name
    (None: a reference to what P1 should hold); `placeholders` as (offset, length), the
    cached ones on a reference; `tag`, the front end's tag of the processing (None in
    untagged variants V0-V2)."""

    identity: str
    payload: Payload | None
    placeholders: tuple[int, int]
    tag: int | None


@dataclass(frozen=True, slots=True, eq=False)
class WireMessage:
    """What one front end sends to the engine for one request attempt: `items` in request
    order, and `request_id`, allocated by the front end (the adapter), unique per front end
    across its restarts (the reference adapter prefixes the restart count); the harness only
    passes it back to `abandon` and `handle_reply`."""

    request_id: int
    items: tuple[WireItem, ...]


@dataclass(frozen=True, slots=True, eq=False)
class ModelInput:
    """One item the engine hands to the model: `identity`, `payload` (the tensors it
    uses: the message's payload, or the cached one for a reference) and `placeholders`
    (always the message's)."""

    identity: str
    payload: Payload
    placeholders: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ShadowEntry:
    """One entry of a front end's shadow, least recent first in `FrontEndSide.shadow`:
    `identity`, `size` as the front end recorded it (bytes of the processed payload, never
    recomputed by the adapter), the cached `placeholders`, the `tag` (None if untagged)."""

    identity: str
    size: int
    placeholders: tuple[int, int]
    tag: int | None


@dataclass(frozen=True, slots=True, eq=False)
class ReceiverEntry:
    """One entry of the engine's cache, least recent first in `EngineSide.receiver`:
    `identity`, `size` as the engine recorded it (bytes of what it received), the cached
    `payload` itself, the `tag` stored with it (None if untagged)."""

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
    """The engine's retryable miss error and the identities it lists, each once in the order
    first listed: an engine may list an identity its request named twice once per occurrence
    (vLLM's does), and the front end drops it once either way, so the count is not compared."""

    identities: tuple[str, ...]

    def __post_init__(self) -> None:
        if isinstance(self.identities, tuple):
            object.__setattr__(self, "identities", tuple(dict.fromkeys(self.identities)))


@dataclass(frozen=True, slots=True)
class Fault:
    """A side stopped: kind is "engine-crash" (P1's assertion on a miss), "p0-assert" (a
    probed hit gone at update time, no data; it fails that request only, the front end goes
    on with its shadow as the failed update left it), "hang" (eviction made no progress) or
    "crash" (anything else, e.g. an unexpected exception)."""

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

    def shadow(self) -> tuple[ShadowEntry, ...]:
        """The shadow as it is, least recent first, read from the real cache."""
        ...


@runtime_checkable
class ClientRetry(Protocol):
    """Optional, on a front-end side: the implementation's own client retry. Given the items
    of the attempt that missed and the media of every identity, return the items the client
    resends. Without it the harness resends media on every item itself."""

    def retry_items(
        self, items: tuple[ItemIn, ...], media: Mapping[str, torch.Tensor]
    ) -> tuple[ItemIn, ...]: ...


@runtime_checkable
class ItemUpdates(Protocol):
    """Optional, on a front-end side: the update one item at a time, as a front end that
    updates its shadow outside a lock does (D6: other requests' updates interleave between
    the items). The first call on a probed request touches every identity of the request;
    each call then updates the next item in the implementation's order and returns None
    while items remain; the call for the last item returns the `WireMessage` (or a
    `ClientRejected` / `Fault`, at any call, which ends the update). Without it a trace
    that interleaves another step between two items of one update cannot be driven (its
    replay stops there, exit 5); consecutive item steps are taken as one `update`."""

    def update_item(self, probed: object) -> WireMessage | ClientRejected | Fault | None: ...


class LoopStopped(BaseException):
    """Raised by the harness's `send` inside `ClientLoop.retry_loop` once it has the attempt
    it asked for; the loop must let it through (it is a BaseException so that a loop
    catching `Exception` does too)."""


@runtime_checkable
class ClientLoop(Protocol):
    """Optional, on a front-end side: the implementation's own client retry loop, driven
    whole. The harness calls it once per retry of a request, with the request as first sent
    (`items`), the media of every identity and the spec's `max_retries`; `send(attempt)`
    returns the attempt's `Missed` (raise your client's miss error for it) or None (it
    succeeded). The harness answers the attempts the request really made so far with their
    real misses and stops the loop (`LoopStopped`) at the next one, which is the resend it
    drives; a loop that gives up before it does not retry. Takes precedence over
    `ClientRetry`."""

    def retry_loop(
        self, send: Callable[[tuple[ItemIn, ...]], Missed | None], items: tuple[ItemIn, ...],
        media: Mapping[str, torch.Tensor], max_retries: int,
    ) -> None: ...


@runtime_checkable
class EndToEnd(Protocol):
    """Optional, on a front-end side: the implementation's own end-to-end call (prepare,
    receive on `engine`, close with the reply) for one request, as users call it (the
    reference's `serve`). `engine` is the engine side the same adapter built, in this
    process (also with `--processes 2`: the served cases build their engine here).
    Return what the client gets: `Served`, `Missed` (after the front end handled the reply),
    `ClientRejected` or a `Fault`. The harness drives it in cases of their own (no D9),
    comparing everything after the whole round trip (the spec's four steps: submit, handle,
    receive, reply), and replays their traces the same way."""

    def serve(self, engine: EngineSide, items: tuple[ItemIn, ...]
              ) -> Served | Missed | ClientRejected | Fault: ...


@runtime_checkable
class Refuses(Protocol):
    """Optional, on an engine side: how the engine refuses a request (a prompt too long, a
    full queue) before it reads any item: `refuse(message)` returns the exception its
    `receive` raises then (the engine's own error class). Under D2 the harness makes the
    engine refuse requests: it raises that exception from `receive` inside the front end's
    own end-to-end call (`EndToEnd.serve`, or `serve_async` with `--async-clients`), so that the
    front end's own refusal path runs: in lockstep at each rejection step, in `--threads` and
    `--async-clients` at some first attempts (each made alone on its front end, so that the shadow
    the refusal left is compared with the spec's). The front end may keep what the attempt
    recorded in its shadow or undo it (the spec allows both; the report says which it saw),
    and must let the exception through to its client (a `serve` that returns instead hid
    the refusal). Without it, or without `EndToEnd`, lockstep drives the refusal with
    `FrontEndSide.abandon`, and the concurrent runs make none."""

    def refuse(self, message: WireMessage) -> Exception:
        """The error this engine's `receive` raises when it refuses `message` (it reads
        nothing, changes nothing)."""
        ...


class RefusingEngine:
    """An engine side whose `receive` refuses every message with the error the engine
    declares (`Refuses.refuse`), reading nothing; `refused` holds the error raised, and
    `told` is called as it refuses."""

    def __init__(self, engine: Refuses, told: Callable[[], None] = lambda: None) -> None:
        self.engine = engine
        self.refused: Exception | None = None
        self.told = told  # called as the engine refuses

    def receive(self, message: WireMessage) -> Delivered:
        self.refused = self.engine.refuse(message)
        self.told()
        raise self.refused

    def __getattr__(self, name: str) -> object:
        return getattr(self.engine, name)


def refused_by(engine: RefusingEngine, error: BaseException) -> bool:
    """Whether `error`, escaping a front end's `serve`, is the refusal `engine` raised (the
    same error, or one of its class: a front end may re-raise it as a new one)."""
    return engine.refused is not None and (error is engine.refused
                                           or type(error) is type(engine.refused))


@runtime_checkable
class EngineSide(Protocol):
    """P1 as the harness sees it."""

    def receive(self, message: WireMessage) -> Delivered:
        """Handle one message: `Served` (every item), `Missed` (every missed identity, in
        request order) or `Fault`."""
        ...

    def clear(self) -> Fault | None:
        """Drop every cached payload; a `Fault` (or None) says how it went."""
        ...

    def restart(self) -> Fault | None:
        """The process restarts: the cache is lost."""
        ...

    def receiver(self) -> tuple[ReceiverEntry, ...]:
        """The cache as it is, least recent first, read from the real cache."""
        ...

    def close(self) -> None:
        """Release resources (processes, sockets); called once, also after a failure."""
        ...


@runtime_checkable
class Adapter(Protocol):
    """Builds the sides of one implementation. `name` labels reports."""

    name: str

    def supports(self, variant: str) -> bool:
        """Whether the implementation has this variant ("V0".."V4")."""
        ...

    def front_end(self, setup: Setup, index: int) -> FrontEndSide:
        """A new front end, number `index` of `setup.front_ends` (D5: more than one)."""
        ...

    def engine(self, setup: Setup) -> EngineSide:
        """A new engine (with `--processes 2`, built in the child process)."""
        ...


ADAPTER_METHODS: dict[str, tuple[str, ...]] = {
    "supports": ("variant",),
    "front_end": ("setup", "index"),
    "engine": ("setup",),
}
FRONT_END_METHODS: dict[str, tuple[str, ...]] = {
    "probe": ("items",), "update": ("probed",), "abandon": ("request_id",),
    "handle_reply": ("request_id", "missed"), "clear": (), "restart": (), "shadow": (),
}
ENGINE_METHODS: dict[str, tuple[str, ...]] = {
    "receive": ("message",), "clear": (), "restart": (), "receiver": (), "close": (),
}
"""Every method of the interface and its parameters (after self), as the harness calls them."""


def _check_methods(owner: object, what: str, methods: Mapping[str, tuple[str, ...]]) -> None:
    """Each method exists, is callable, and accepts the harness's positional arguments."""
    for name, params in methods.items():
        method = getattr(owner, name, None)
        wanted = f"{name}({', '.join(params)})"
        if not callable(method):
            raise AdapterError(f"{what} ({type(owner).__name__}) has no method {wanted} "
                               f"(adapter interface version {ADAPTER_API})")
        try:
            signature = inspect.signature(method)
        except (TypeError, ValueError):
            continue  # a builtin without a signature: it will be called and judged then
        try:
            signature.bind(*params)
        except TypeError:
            has = f"{name}({', '.join(signature.parameters)})"
            raise AdapterError(f"{what} ({type(owner).__name__}) has {has}, "
                               f"expected {wanted} (adapter interface version "
                               f"{ADAPTER_API})") from None


def load_adapter(path: str) -> Adapter:
    """`module:factory` -> the adapter the factory returns, checked against interface version
    `ADAPTER_API` (its methods' parameters, its `api_version` if it states one). Raises
    `AdapterError` with one line saying what is wrong."""
    module_name, sep, attribute = path.partition(":")
    if not sep or not module_name or not attribute:
        raise AdapterError(f"got adapter {path!r}, expected module:factory")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise AdapterError(f"cannot import {module_name!r}: {error}") from None
    except (Exception, SystemExit) as error:  # an exit at import is the adapter's error too
        raise raised(f"importing {module_name}", error) from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise AdapterError(f"{module_name!r} has no callable {attribute!r}")
    try:
        made = factory()
    except (Exception, SystemExit) as error:
        raise raised(f"{path}()", error) from None
    missing = [n for n in ("name", *ADAPTER_METHODS) if not hasattr(made, n)]
    if missing:
        raise AdapterError(f"{path} returned {type(made).__name__} without "
                           f"{', '.join(missing)}, expected an Adapter (interface version "
                           f"{ADAPTER_API}: name, supports, front_end, engine)")
    version = getattr(made, "api_version", ADAPTER_API)
    if version != ADAPTER_API:
        raise AdapterError(f"{path} was written for adapter interface version {version}, "
                           f"this harness has version {ADAPTER_API}")
    _check_methods(made, "the adapter", ADAPTER_METHODS)
    return made  # type: ignore[no-any-return]


def supports(adapter: Adapter, variant: str) -> bool:
    """`adapter.supports(variant)`; an exception is an `AdapterError`."""
    try:
        return bool(adapter.supports(variant))
    except Exception as error:
        raise raised(f"supports({variant!r})", error) from None


def build_front_end(adapter: Adapter, setup: Setup, index: int) -> FrontEndSide:
    """`adapter.front_end(setup, index)`; an exception is an `AdapterError`."""
    try:
        return adapter.front_end(setup, index)
    except Exception as error:
        raise raised(f"front_end(setup, {index})", error) from None


def build_engine(factory: Callable[[Setup], EngineSide], setup: Setup) -> EngineSide:
    """`adapter.engine(setup)` (or the remote factory); an exception other than a
    `HarnessFailure` or an `AdapterError` is an `AdapterError`."""
    try:
        return factory(setup)
    except (HarnessFailure, AdapterError):
        raise
    except Exception as error:
        raise raised("engine(setup)", error) from None


def preflight(adapter: Adapter, variants: Iterable[str],
              engine_factory: Callable[[Setup], EngineSide] | None = None) -> None:
    """Before any step: for every variant asked for that the adapter supports, build one front
    end and the engine (across processes: in the child) and check their methods; any failure
    is an `AdapterError`, the same whether the engine is local or remote."""
    from model_checks.conform.codec import process_media  # the spec's encoding, only here

    for variant in variants:
        if not supports(adapter, variant):
            continue
        setup = Setup(2, variant, 1, process_media)
        front_end = build_front_end(adapter, setup, 0)
        _check_methods(front_end, "front_end(setup, 0)", FRONT_END_METHODS)
        engine = build_engine(engine_factory or adapter.engine, setup)
        try:
            check_engine(engine)
        finally:
            engine.close()


def check_engine(engine: object) -> None:
    """The engine side's methods accept the harness's arguments (`AdapterError` if not)."""
    _check_methods(engine, "engine(setup)", ENGINE_METHODS)
