"""Every public entry point rejects every bad argument with one of ``reference.errors`` and
changes nothing, driven from the signatures.

``ENTRY_POINTS`` lists the public functions and classes (``reference.__all__``, the asyncio
front end and ``reference.pipeline.deliver``); every public method of those classes, and every
parameter of each, is found with ``inspect``. For each parameter, ``VALID`` gives a good
value (so that only one argument at a time is bad) and ``BAD`` the bad ones; a parameter
missing from either fails ``test_every_parameter_is_catalogued``, so a new entry point cannot
go unchecked. Each bad call must raise a ``BadInputError`` (or the ``ClientError`` of a
UUID-only item that is not cached; a ``CacheError`` either way, never a raw
``TypeError``/``AttributeError``/``RecursionError``), and the state of both caches, of the
standalone caches and of the front ends' request records must be exactly as before.

Plain data classes (messages, entries, stats, errors, variants' values) are built in hot
paths and validated where they are received; they are not entry points here (``Variant``,
``Placeholders``, ``ProcessedItem`` and ``TagSource`` do validate, and are).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import pytest
import torch
from ref_helpers import (
    ITEM_BYTES,
    SerialProcessor,
    deep,
    forced_item,
    forced_request,
    make_item,
    self_referencing,
    snapshot,
)

from reference import (
    V2,
    V4,
    BadInputError,
    ByteLru,
    CacheError,
    ClientError,
    Engine,
    FrontEnd,
    Message,
    MultiModalCacheMissError,
    Outgoing,
    Placeholders,
    ProbedRequest,
    ProcessedItem,
    ProcessorError,
    ReceiverCache,
    Reply,
    Request,
    RequestItem,
    SenderCache,
    TagSource,
    Variant,
    WireItem,
    resolution_order,
    retry,
    serve,
    tree_nbytes,
    validate_budget,
)
from reference.aio import AsyncFrontEnd, InlineExecutor, retry_async, serve_async
from reference.pipeline import deliver


class Alien:
    """A value of a type no entry point expects (hashable, callable-free, not a mapping)."""

    def __repr__(self) -> str:
        return "Alien()"


class World:
    """Everything an entry point may change, in a known state with records to leave alone."""

    def __init__(self) -> None:
        self.processor = SerialProcessor()
        self.fe = FrontEnd(8 * ITEM_BYTES, self.processor, tags=TagSource.for_tests(1))
        self.engine = Engine(8 * ITEM_BYTES)
        serve(self.fe, self.engine, Request((RequestItem("a", 1), RequestItem("b", 2))))
        self.message = self.fe.prepare(Request((RequestItem("a", 1),)))
        self.probed = self.fe.probe(Request((RequestItem("c", 3),)))
        self.afe = AsyncFrontEnd(8 * ITEM_BYTES, self.processor, tags=TagSource.for_tests(2),
                                 executor=InlineExecutor())
        self.amessage, self.aprobed = asyncio.run(self._warm_async())
        self.sender = SenderCache(8 * ITEM_BYTES, tags=TagSource.for_tests(3))
        self.sender.get_and_update("a", make_item(16))
        self.receiver = ReceiverCache(8 * ITEM_BYTES)
        self.receiver.resolve([WireItem("a", {"x": torch.zeros(2)}, Placeholders(0, 1), 7)])
        self.lru: ByteLru[object, object] = ByteLru(64)
        self.lru.put("a", "value", 4)
        self.tags = TagSource.for_tests(4)
        self.request = Request((RequestItem("a", 1), RequestItem("d", 4)))

    async def _warm_async(self) -> tuple[Message, ProbedRequest]:
        self.aengine = Engine(8 * ITEM_BYTES)
        await serve_async(self.afe, self.aengine, Request((RequestItem("a", 1),)))
        message = await self.afe.prepare(Request((RequestItem("a", 1),)))
        return message, await self.afe.probe(Request((RequestItem("c", 3),)))

    def state(self, ids: bool = True) -> tuple[object, ...]:
        view = snapshot if ids else (lambda cache: (cache.entries(), cache.stats()))
        return (
            view(self.fe.sender), view(self.engine.receiver), self.fe.probed(),
            self.fe.outstanding(), view(self.afe.sender), self.afe.probed(),
            self.afe.outstanding(), view(self.aengine.receiver), view(self.sender),
            view(self.receiver),
            self.lru.entries(), self.lru.stats(), self.tags.nonce, self.tags._counter,
            len(self.processor.calls),
            [(nonce, id(source) if ids else None)
             for nonce, source in self.engine._sources.items()],
        )

    def target(self, owner: str, method: str) -> Callable[..., Any]:
        instances: dict[str, object] = {
            "FrontEnd": self.fe, "Engine": self.engine, "AsyncFrontEnd": self.afe,
            "SenderCache": self.sender, "ReceiverCache": self.receiver, "ByteLru": self.lru,
            "TagSource": self.tags, "Request": self.request,
            "InlineExecutor": InlineExecutor(),
        }
        if method == "__init__":
            return ENTRY_POINTS[owner]  # type: ignore[return-value]
        if owner in FUNCTIONS:
            return FUNCTIONS[owner]
        return getattr(instances[owner], method)  # type: ignore[no-any-return]


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "serve": serve, "deliver": deliver, "serve_async": serve_async, "retry": retry,
    "retry_async": retry_async, "tree_nbytes": tree_nbytes,
    "resolution_order": resolution_order, "validate_budget": validate_budget,
}
CLASSES: dict[str, type] = {
    "ByteLru": ByteLru, "SenderCache": SenderCache, "ReceiverCache": ReceiverCache,
    "FrontEnd": FrontEnd, "Engine": Engine, "AsyncFrontEnd": AsyncFrontEnd,
    "TagSource": TagSource, "Placeholders": Placeholders, "ProcessedItem": ProcessedItem,
    "Variant": Variant, "InlineExecutor": InlineExecutor, "Request": Request,
}
ENTRY_POINTS: dict[str, object] = {**FUNCTIONS, **CLASSES}
# Methods of the classes above that are not entry points: ``Request``'s dataclass plumbing
# (its entry point is ``with_media``), the constructors of plain values built in hot paths.
NOT_ENTRY_POINTS = {("Request", "__init__"), ("Request", "identities")}
ASYNC_METHODS = {"probe", "update", "prepare"}

Value = Callable[[World], object]


def entry_points() -> Iterator[tuple[str, str, inspect.Signature]]:
    """(owner, method, signature) of every public entry point: functions as (name, "")."""
    for name, function in FUNCTIONS.items():
        yield name, "", inspect.signature(function)
    for name, cls in CLASSES.items():
        for method, member in inspect.getmembers(cls):
            public = not method.startswith("_") or method in ("__init__", "__contains__")
            if not public or (name, method) in NOT_ENTRY_POINTS or isinstance(member, property):
                continue
            if not callable(member) or (name == "Variant" and method != "__init__"):
                continue
            if inspect.isclass(member) or method in {"__init_subclass__", "__subclasshook__"}:
                continue
            if name in ("Placeholders", "ProcessedItem") and method != "__init__":
                continue
            if name == "InlineExecutor" and method not in ("submit",):
                continue
            yield name, method, inspect.signature(member)


def parameters(signature: inspect.Signature) -> list[str]:
    return [p.name for p in signature.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


# A good value per parameter: "owner.method.param", then "owner.param", then "param".
VALID: dict[str, Value] = {
    "budget": lambda w: 64,
    "processor": lambda w: SerialProcessor(),
    "variant": lambda w: V4,
    "tags": lambda w: TagSource.for_tests(9),
    "executor": lambda w: None,
    "identities": lambda w: ["a"],
    "identity": lambda w: "a",
    "key": lambda w: "a",
    "keys": lambda w: ["a"],
    "value": lambda w: "another",
    "size": lambda w: 4,
    "nodes": lambda w: 1,
    "ByteLru.put_entry.nodes": lambda w: 2,
    "max_nodes": lambda w: None,
    "SenderCache.get_and_update.item": lambda w: make_item(16),
    "ReceiverCache.get_and_update.item": lambda w: WireItem(
        "z", {"x": torch.zeros(1)}, Placeholders(0, 1), 5),
    "outgoing": lambda w: (Outgoing("z", make_item(16), 9),),
    "resend": lambda w: False,
    "process": lambda w: w.processor,
    "SenderCache.retract.items": lambda w: w.message.items,
    "ReceiverCache.resolve.items": lambda w: (WireItem("z", {"x": torch.zeros(1)},
                                                       Placeholders(0, 1), 5),),
    "request": lambda w: w.request,
    "probed": lambda w: w.probed,
    "AsyncFrontEnd.probed": lambda w: w.aprobed,
    "AsyncFrontEnd.reply": lambda w: Reply(w.amessage.request_id, ()),
    "AsyncFrontEnd.message": lambda w: w.amessage,
    "AsyncFrontEnd.request_id": lambda w: w.amessage.request_id,
    "reply": lambda w: Reply(w.message.request_id, ()),
    "message": lambda w: w.message,
    "request_id": lambda w: w.message.request_id,
    "ReceiverCache.miss_error.request_id": lambda w: None,
    "hits": lambda w: frozenset({"a"}),
    "processed": lambda w: {"d": make_item(16)},
    "front_end": lambda w: w.fe,
    "serve_async.front_end": lambda w: w.afe,
    "engine": lambda w: w.engine,
    "serve_async.engine": lambda w: w.aengine,
    "send": lambda w: (lambda request: serve(w.fe, w.engine, request)),
    "retry_async.send": lambda w: w.afe.prepare,
    "max_retries": lambda w: 1,
    "media": lambda w: None,
    "Request.with_media.media": lambda w: {"a": 5},
    "tree": lambda w: {"x": torch.zeros(1)},
    "path": lambda w: "",
    "is_reference": lambda w: [True, False],
    "nonce": lambda w: 3,
    "TagSource.__init__.nonce": lambda w: None,
    "Engine.admit.tags": lambda w: w.fe.sender.tags,
    "offset": lambda w: 0,
    "length": lambda w: 1,
    "payload": lambda w: {"x": torch.zeros(1)},
    "placeholders": lambda w: Placeholders(0, 1),
    "token_key": lambda w: None,
    "backoff": lambda w: 0.0,
    "sleep": lambda w: (lambda seconds: None),
    "retry_async.sleep": lambda w: asyncio.sleep,
    "fn": lambda w: print,
    "name": lambda w: "V9",
    "payload_wins": lambda w: True,
    "tagged": lambda w: True,
    "references_first": lambda w: True,
    "late_miss_reprocess": lambda w: True,
    "recovers": lambda w: True,
    "resends_bypass_shadow": lambda w: True,
}

ALIEN: Value = lambda w: Alien()  # noqa: E731
BAD: dict[str, list[Value]] = {
    "budget": [ALIEN, lambda w: 0, lambda w: -1, lambda w: 1.5, lambda w: True,
               lambda w: "64", lambda w: float("nan"), lambda w: None],
    "processor": [ALIEN, lambda w: None],
    "variant": [ALIEN, lambda w: "V3", lambda w: None],
    "tags": [ALIEN, lambda w: 5],
    "executor": [ALIEN, lambda w: 5],
    "identities": [ALIEN, lambda w: "img", lambda w: "ww", lambda w: 5, lambda w: None,
                   lambda w: ["a", "a"], lambda w: [""], lambda w: [3], lambda w: [[]]],
    "identity": [ALIEN, lambda w: "", lambda w: 3, lambda w: None, lambda w: []],
    "key": [lambda w: [], lambda w: {}],  # any hashable key is a key
    "keys": [ALIEN, lambda w: [[]], lambda w: None],
    "value": [lambda w: None],  # any other value is a value
    "size": [ALIEN, lambda w: -1, lambda w: 1.5, lambda w: True, lambda w: None],
    "nodes": [ALIEN, lambda w: 0, lambda w: 1.5, lambda w: True, lambda w: None],
    "max_nodes": [ALIEN, lambda w: 0, lambda w: 1.5, lambda w: True],
    "SenderCache.get_and_update.item": [ALIEN, lambda w: 5],
    "ReceiverCache.get_and_update.item": [
        ALIEN, lambda w: None,
        lambda w: WireItem("z", {"x": torch.zeros(1)}, Placeholders(0, 1), None),
        lambda w: WireItem("z", {"x": 1}, Placeholders(0, 1), 5),
        lambda w: WireItem("z", self_referencing(), Placeholders(0, 1), 5),  # type: ignore[arg-type]
        lambda w: WireItem("z", deep(5000), Placeholders(0, 1), 5),  # type: ignore[arg-type]
        lambda w: WireItem("", {"x": torch.zeros(1)}, Placeholders(0, 1), 5),
        lambda w: WireItem("z", {"x": torch.zeros(1)}, (0, 1), 5),  # type: ignore[arg-type]
    ],
    "outgoing": [ALIEN, lambda w: "ab", lambda w: None, lambda w: [5],
                 lambda w: [Outgoing(3, None, None)],  # type: ignore[arg-type]
                 lambda w: [Outgoing("z", make_item(16), 1), Outgoing("z", None, 1)],
                 lambda w: [Outgoing("z", 5, 1)]],  # type: ignore[arg-type]
    "process": [ALIEN, lambda w: 5],
    "resend": [ALIEN, lambda w: 1, lambda w: None, lambda w: "True"],
    "SenderCache.retract.items": [ALIEN, lambda w: "ab", lambda w: [5], lambda w: None],
    "ReceiverCache.resolve.items": [
        ALIEN, lambda w: "ab", lambda w: [5], lambda w: None,
        lambda w: [WireItem("z", self_referencing(), Placeholders(0, 1), 5)],  # type: ignore[arg-type]
        lambda w: [WireItem("z", {"x": torch.zeros(1)}, Placeholders(0, 1), 5),
                   WireItem("z", None, Placeholders(0, 1), 5)],
    ],
    "request": [ALIEN, lambda w: None,
                lambda w: forced_request([RequestItem("a", 1)]),
                lambda w: forced_request((("a", 1),)),
                lambda w: Request((RequestItem("a", 1), RequestItem("a", 1))),
                lambda w: forced_request((forced_item("", 1),)),
                lambda w: forced_request((forced_item(["a"], 1),)),
                lambda w: Request((RequestItem("unknown-uuid-only"),)),
                lambda w: forced_request((RequestItem("a", 1),), resend=1),
                lambda w: forced_request((RequestItem("a", 1),), resend=None),
                # a V4 resend reads nothing from the shadow: a held UUID-only item is missing
                lambda w: Request((RequestItem("a"),), resend=True)],
    "probed": [ALIEN, lambda w: None,
               lambda w: ProbedRequest(w.probed.request_id, w.probed.request, frozenset(),
                                       {"c": make_item(16)}),
               lambda w: ProbedRequest(999, w.probed.request, frozenset(), {})],
    "reply": [ALIEN, lambda w: None, lambda w: Reply("1"),  # type: ignore[arg-type]
              lambda w: Reply([1]),  # type: ignore[arg-type]
              lambda w: Reply(w.message.request_id, ["a"]),  # type: ignore[arg-type]
              lambda w: Reply(w.message.request_id, ("zz",)),
              lambda w: Reply(w.message.request_id, "a"),  # type: ignore[arg-type]
              lambda w: Reply(999, ())],
    "message": [ALIEN, lambda w: None, lambda w: Message("1", w.message.items),  # type: ignore[arg-type]
                lambda w: Message([1], w.message.items),  # type: ignore[arg-type]
                lambda w: Message(999, w.message.items),
                lambda w: Message(w.message.request_id, "ab")],  # type: ignore[arg-type]
    "Engine.receive.message": [
        ALIEN, lambda w: None, lambda w: Message("1", w.message.items),  # type: ignore[arg-type]
        lambda w: Message(w.message.request_id, "ab")],  # type: ignore[arg-type]
    "request_id": [ALIEN, lambda w: "1", lambda w: None, lambda w: 1.5, lambda w: [1],
                   lambda w: 999],
    "ReceiverCache.miss_error.request_id": [ALIEN, lambda w: "1", lambda w: 1.5],
    "hits": [ALIEN, lambda w: {"a"}, lambda w: frozenset({"zz"}), lambda w: frozenset(),
             lambda w: frozenset({"a", "d"})],
    "processed": [ALIEN, lambda w: [], lambda w: {"d": 5}, lambda w: {},
                  lambda w: {"d": make_item(16), "a": make_item(16)}],
    "front_end": [ALIEN, lambda w: None],
    "serve_async.front_end": [ALIEN, lambda w: None, lambda w: w.fe],
    "engine": [ALIEN, lambda w: None, lambda w: Engine(64, variant=V2), lambda w: w.fe],
    "send": [ALIEN, lambda w: None],
    "max_retries": [ALIEN, lambda w: -1, lambda w: True, lambda w: 1.0],
    "media": [ALIEN, lambda w: 5, lambda w: ["a"]],
    "tree": [ALIEN, lambda w: None, lambda w: {"a": 1}, lambda w: [torch.zeros(1)],
             lambda w: {1: torch.zeros(1)}, lambda w: self_referencing(),
             lambda w: deep(5000), lambda w: {"m": torch.empty(1, device="meta")}],
    "path": [ALIEN, lambda w: 5],
    "is_reference": [ALIEN, lambda w: "ab", lambda w: [1], lambda w: None],
    "TagSource.__init__.nonce": [ALIEN, lambda w: 7, lambda w: 0],
    "Engine.admit.tags": [ALIEN, lambda w: 5, lambda w: TagSource.for_tests(1)],
    "nonce": [ALIEN, lambda w: -1, lambda w: True, lambda w: 1 << 32, lambda w: 1.0],
    "offset": [ALIEN, lambda w: -1, lambda w: True, lambda w: None],
    "length": [ALIEN, lambda w: -1, lambda w: 1.0, lambda w: None],
    "payload": [ALIEN, lambda w: {"x": 1}, lambda w: [], lambda w: self_referencing(),
                lambda w: deep(5000)],
    "placeholders": [ALIEN, lambda w: (0, 1), lambda w: None],
    "token_key": [ALIEN, lambda w: "absent", lambda w: 5],
    "backoff": [ALIEN, lambda w: -1.0, lambda w: float("nan"), lambda w: True, lambda w: None],
    "sleep": [ALIEN, lambda w: None],
    "fn": [ALIEN, lambda w: 5],
    "name": [ALIEN, lambda w: 3, lambda w: ""],
    **{knob: [ALIEN, lambda w: 1, lambda w: None] for knob in (
        "payload_wins", "tagged", "references_first", "late_miss_reprocess", "recovers",
        "resends_bypass_shadow")},
}


def lookup(table: dict[str, Any], owner: str, method: str, param: str) -> Any:
    for key in (f"{owner}.{method}.{param}", f"{owner}.{param}", param):
        if key in table:
            return table[key]
    return None


CASES = [
    pytest.param(owner, method, param, index,
                 id=f"{owner}{'.' + method if method else ''}({param})#{index}")
    for owner, method, signature in entry_points()
    for param in parameters(signature)
    for index in range(len(lookup(BAD, owner, method, param) or []))
]


def test_every_parameter_is_catalogued() -> None:
    """A public entry point's parameter without a good and a bad value fails here."""
    missing = [f"{owner}.{method}({param})"
               for owner, method, signature in entry_points()
               for param in parameters(signature)
               if lookup(VALID, owner, method, param) is None
               or not lookup(BAD, owner, method, param)]
    assert missing == []
    assert len(CASES) > 250


def arguments_with(world: World, owner: str, method: str, param: str,
                   value_of: Callable[[World], object]) -> dict[str, object]:
    """The valid arguments of `owner.method` in `world` (`VALID`), `param`'s replaced by
    `value_of(world)` (made after the valid ones, in the same world)."""
    signature = (inspect.signature(FUNCTIONS[owner]) if owner in FUNCTIONS
                 else inspect.signature(getattr(CLASSES[owner], method)))
    arguments = {name: lookup(VALID, owner, method, name)(world)
                 for name in parameters(signature)}
    arguments[param] = value_of(world)
    return arguments


def call(world: World, owner: str, method: str, arguments: dict[str, object]) -> object:
    target = world.target(owner, method or "__init__")
    if owner in FUNCTIONS:
        target = FUNCTIONS[owner]
    signature = inspect.signature(target)
    positional = [arguments[p.name] for p in signature.parameters.values()
                  if p.kind is p.POSITIONAL_ONLY]
    keywords = {p.name: arguments[p.name] for p in signature.parameters.values()
                if p.kind is not p.POSITIONAL_ONLY and p.name in arguments}
    result = target(*positional, **keywords)
    if inspect.iscoroutine(result):
        return asyncio.run(result)
    return result


@pytest.mark.parametrize(("owner", "method", "param", "index"), CASES)
def test_a_bad_argument_is_rejected_and_changes_nothing(
    owner: str, method: str, param: str, index: int
) -> None:
    world = World()
    arguments = arguments_with(world, owner, method, param,
                               lookup(BAD, owner, method, param)[index])
    before = world.state()
    with pytest.raises((BadInputError, ClientError)) as caught:
        call(world, owner, method, arguments)
    if (owner, param) == ("deliver", "engine"):  # documented: the message is withdrawn
        twin = World()
        twin.fe.withdraw(twin.message)
        assert world.state(ids=False) == twin.state(ids=False)
    else:
        assert world.state() == before
    assert "got" in str(caught.value) and "expected" in str(caught.value)
    assert len(str(caught.value)) <= MESSAGE_LIMIT


def test_the_valid_arguments_are_accepted() -> None:
    """The good values really are good: each entry point called with them alone does not
    raise a BadInputError (so the bad calls above fail because of their one bad argument)."""
    for owner, method, signature in entry_points():
        world = World()
        arguments = {name: lookup(VALID, owner, method, name)(world)
                     for name in parameters(signature)}
        try:
            call(world, owner, method, arguments)
        except CacheError as error:
            pytest.fail(f"{owner}.{method} rejected its valid arguments: {error!r}")


def test_a_bare_string_is_not_a_list_of_identities() -> None:
    """Before: ``invalidate("img")`` dropped "i", "m" and "g" and returned 1, and
    ``invalidate("ww")`` raised DuplicateIdentityError."""
    cache = SenderCache(64, tags=TagSource.for_tests(1))
    for key in "img":
        cache.get_and_update(key, make_item(16))
    before = snapshot(cache)
    for call_ in (cache.invalidate, cache.probe):
        for bare in ("img", "ww"):
            with pytest.raises(BadInputError, match="expected a collection"):
                call_(bare)
    assert snapshot(cache) == before


def test_async_update_of_none_is_a_clear_error() -> None:
    """Before: a raw AttributeError where the threaded front end raises BadInputTypeError."""
    front_end = AsyncFrontEnd(64, SerialProcessor(), executor=InlineExecutor())
    with pytest.raises(BadInputError, match="expected ProbedRequest"):
        asyncio.run(front_end.update(None))  # type: ignore[arg-type]


@pytest.mark.parametrize("tree", [self_referencing(), deep(5000)], ids=["cycle", "5000-deep"])
def test_deep_or_cyclic_payloads_are_a_clear_error(tree: dict[str, object]) -> None:
    """Before: a raw RecursionError."""
    with pytest.raises(BadInputError, match="nested deeper than 32 levels"):
        ProcessedItem(tree, Placeholders(0, 1))  # type: ignore[arg-type]
    assert tree_nbytes(deep(31)) == 4


def test_long_identities_are_shortened_in_messages() -> None:
    identity = "f" * 64
    cache = SenderCache(64, tags=TagSource.for_tests(1))
    with pytest.raises(BadInputError) as caught:
        cache.probe([identity, identity])
    assert "f" * 17 not in str(caught.value) and "fffffffffffff..." in str(caught.value)
    from reference import MultiModalCacheMissError
    error = MultiModalCacheMissError([f"{i:064x}" for i in range(10)])
    assert len(str(error)) < 200 and "and 6 more" in str(error)
    assert error.identities[0] == "0" * 64  # the attribute keeps them whole


# --- probe classes: inputs a public entry point may get, each rejected cleanly or accepted ---
#
# For every entry point and every parameter, ``PROBES`` (keyed like ``VALID``) gives the probe
# classes that parameter can receive: inputs built to make a check do unbounded work, raise a
# raw error, or change something before it raises. Each call must raise a ``CacheError``
# whose message is bounded (``MESSAGE_LIMIT``), with every cache, record and counter as
# before, or be accepted (what is documented for it) with every cache's invariants intact.

MESSAGE_LIMIT = 600
MB_IDENTITY = "m" * (1 << 20)
UNKNOWN = tuple(f"unknown-{index}" for index in range(1000))


class Fickle(Mapping[str, torch.Tensor]):
    """A payload mapping whose items() differ per call: 4 bytes first, 1 MiB after."""

    def __init__(self) -> None:
        self.calls = 0

    def _now(self) -> dict[str, torch.Tensor]:
        self.calls += 1
        return {"x": torch.zeros(1 if self.calls == 1 else 1 << 18)}

    def __getitem__(self, key: str) -> torch.Tensor:
        return self._now()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._now())

    def __len__(self) -> int:
        return 1

    def items(self) -> Any:
        return self._now().items()


class Broken(Mapping[str, torch.Tensor]):
    """A payload mapping whose items() raises a raw AttributeError."""

    def __getitem__(self, key: str) -> torch.Tensor:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 1

    def items(self) -> Any:
        raise AttributeError("items")


class Name(str):
    """A str subclass (an identity must be a plain str)."""


def expanded() -> dict[str, torch.Tensor]:
    return {"x": torch.zeros(1).expand(10**12)}  # 4 TB on paper, 4 bytes of storage


async def async_processor(content: object) -> ProcessedItem:
    return make_item(16)


def miss_processor(content: object) -> ProcessedItem:
    raise MultiModalCacheMissError(["inner"])


async def async_send(request: Request) -> object:
    return None


def sync_send(request: Request) -> object:
    return None


def wire(identity: str, payload: object, tag: object = 5,
         placeholders: object = None) -> WireItem:
    return WireItem(identity, payload,  # type: ignore[arg-type]
                    Placeholders(0, 1) if placeholders is None else placeholders, tag)


Probe = tuple[str, Value]
PAYLOAD_PROBES: list[Probe] = [
    ("expanded huge tensor", lambda w: expanded()),
    ("items() differ per call", lambda w: Fickle()),
    ("items() raises", lambda w: Broken()),
]
WIRE_PROBES: list[Probe] = [
    (name, lambda w, make=make: wire("z", make(w))) for name, make in PAYLOAD_PROBES
] + [("1 MB identity", lambda w: wire(MB_IDENTITY, {"x": torch.zeros(1)})),
     ("garbage wire item", lambda w: wire("z", {"x": 1}, "tag", (0, 1)))]
PROBES: dict[str, list[Probe]] = {
    "identity": [("1 MB identity", lambda w: MB_IDENTITY),
                 ("str subclass", lambda w: Name("a"))],
    "key": [("1 MB identity", lambda w: MB_IDENTITY)],
    "identities": [("1 MB identity", lambda w: [MB_IDENTITY, MB_IDENTITY]),
                   ("1,000 unknown identities", lambda w: list(UNKNOWN)),
                   ("str subclass", lambda w: [Name("a")])],
    "keys": [("1 MB identity", lambda w: [MB_IDENTITY]),
             ("1,000 unknown identities", lambda w: list(UNKNOWN))],
    "resend": [("numpy bool as a flag", lambda w: np.bool_(True))],
    "request": [("numpy bool as a flag",
                 lambda w: forced_request((RequestItem("a", 1),), resend=np.bool_(True))),
                ("1 MB identity", lambda w: Request((RequestItem(MB_IDENTITY, 1),
                                                      RequestItem(MB_IDENTITY, 1)))),
                ("1,000 unknown identities",
                 lambda w: Request(tuple(RequestItem(i) for i in UNKNOWN))),
                ("str subclass", lambda w: forced_request((forced_item(Name("a"), 1),)))],
    "reply": [("1 MB identity", lambda w: Reply(w.message.request_id, (MB_IDENTITY,))),
              ("1,000 unknown identities", lambda w: Reply(w.message.request_id, UNKNOWN))],
    "AsyncFrontEnd.reply": [
        ("1,000 unknown identities", lambda w: Reply(w.amessage.request_id, UNKNOWN))],
    "message": [("garbage wire item", lambda w: Message(
        w.message.request_id, (wire("a", {"x": 1}, "tag", (0, 1)),))),
        ("1 MB identity", lambda w: Message(w.message.request_id, (wire(MB_IDENTITY, None),)))],
    "Engine.receive.message": [
        ("expanded huge tensor", lambda w: Message(50, (
            w.message.items[0], wire("e", expanded(), w.message.items[0].tag)))),
        ("items() differ per call", lambda w: Message(51, (wire("f", Fickle()),))),
        ("items() raises", lambda w: Message(52, (w.message.items[0], wire("g", Broken())))),
        ("1 MB identity", lambda w: Message(53, (wire(MB_IDENTITY, {"x": torch.zeros(1)}),)))],
    "SenderCache.retract.items": [
        ("garbage wire item", lambda w: [wire("a", {"x": 1}, "tag", (0, 1))]),
        ("garbage wire item", lambda w: [wire("a", {"x": torch.zeros(1)}, -5)]),
        ("garbage wire item", lambda w: [wire("a", {"x": torch.zeros(1)}, 5, (0, 1))]),
        ("items() raises", lambda w: [wire("a", Broken())])],
    "ReceiverCache.resolve.items": [(name, lambda w, make=make: [make(w)])
                                    for name, make in WIRE_PROBES],
    "ReceiverCache.get_and_update.item": WIRE_PROBES,
    "payload": PAYLOAD_PROBES,
    "tree": PAYLOAD_PROBES,
    "processor": [("async callback", lambda w: async_processor),
                  ("processor raising a miss", lambda w: miss_processor)],
    "process": [("async callback", lambda w: async_processor),
                ("processor raising a miss", lambda w: miss_processor)],
    "send": [("async callback", lambda w: async_send)],
    "retry_async.send": [("sync callback", lambda w: sync_send)],
    "sleep": [("async callback", lambda w: asyncio.sleep)],
    "retry_async.sleep": [("sync callback", lambda w: time.sleep)],
    "backoff": [("backoff 10**400", lambda w: 10**400), ("backoff 1e308", lambda w: 1e308)],
    "budget": [("huge number", lambda w: 10**400), ("huge number", lambda w: 1e308)],
    "size": [("huge number", lambda w: 10**400)],
    "request_id": [("huge number", lambda w: 10**5000)],
    "offset": [("tensor as a number", lambda w: torch.tensor(1))],
    "length": [("tensor as a number", lambda w: torch.tensor(1))],
    "nonce": [("tensor as a number", lambda w: torch.tensor(3))],
    "max_retries": [("tensor as a number", lambda w: torch.tensor(1))],
}
PROBE_CASES = [
    pytest.param(owner, method, param, index,
                 id=f"{owner}{'.' + method if method else ''}({param})#{name}#{index}")
    for owner, method, signature in entry_points()
    for param in parameters(signature)
    for index, (name, _) in enumerate(lookup(PROBES, owner, method, param) or [])
]


def test_every_probe_class_reaches_an_entry_point() -> None:
    classes = {name for probes in PROBES.values() for name, _ in probes}
    reached = {case.id.split("#")[1] for case in PROBE_CASES}  # type: ignore[union-attr]
    assert classes == reached and len(PROBE_CASES) > 80


def invariants_hold(world: World) -> None:
    for cache in (world.fe.sender, world.engine.receiver, world.afe.sender,
                  world.aengine.receiver, world.sender, world.receiver):
        cache.check_invariants()
    world.lru.check_invariants()


@pytest.mark.parametrize(("owner", "method", "param", "index"), PROBE_CASES)
def test_a_probe_is_rejected_cleanly_or_accepted_with_invariants_intact(
    owner: str, method: str, param: str, index: int
) -> None:
    world = World()
    arguments = arguments_with(world, owner, method, param,
                               lookup(PROBES, owner, method, param)[index][1])
    before = world.state()
    try:
        result = call(world, owner, method, arguments)
    except CacheError as error:
        text = "\n".join([str(error), *getattr(error, "__notes__", [])])
        assert len(text) <= MESSAGE_LIMIT, text[:200]
        if (owner, param) != ("deliver", "engine"):
            assert world.state() == before
    else:
        if isinstance(result, ProcessedItem):  # charged what it keeps
            assert result.nbytes == max(tree_nbytes(result.payload), 1)
    invariants_hold(world)


def test_a_late_miss_without_an_item_counts_nothing() -> None:
    """Before: ``get_and_update("zz", None)`` raised after counting two lookups."""
    cache = SenderCache(64, tags=TagSource.for_tests(1))
    before = snapshot(cache)
    with pytest.raises(CacheError):
        cache.get_and_update("zz", None)
    assert snapshot(cache) == before


def test_a_reference_and_an_unallocatable_payload_change_nothing_on_p1() -> None:
    """Before: the allocator's raw RuntimeError after P1 moved ``a`` to most recent and
    counted a hit. Now the payload is prepared before anything changes (a budget that
    would cache it has it copied, and the copy fails first)."""
    engine = Engine(1 << 50)
    front_end = FrontEnd(1 << 50, SerialProcessor(), tags=TagSource.for_tests(1))
    serve(front_end, engine, Request((RequestItem("a", 1), RequestItem("b", 2))))
    reference = front_end.prepare(Request((RequestItem("a", 1),))).items[0]
    before = snapshot(engine.receiver)
    with pytest.raises(BadInputError, match="cannot be materialised"):
        engine.receive(Message(99, (reference, wire("e", expanded(), 7))))
    assert snapshot(engine.receiver) == before


def test_an_over_budget_expanded_payload_is_served_without_a_copy() -> None:
    engine = Engine(64)
    payload = expanded()
    [served] = engine.receive(Message(1, (wire("e", payload, 7),)))
    assert served.payload["x"].data_ptr() == payload["x"].data_ptr()  # type: ignore[union-attr]
    assert engine.receiver.entries() == [] and engine.stats().oversize == 1


def test_a_fickle_payload_is_charged_what_is_kept() -> None:
    """Before: charged 4 bytes while 1 MiB was kept."""
    item = ProcessedItem(Fickle(), Placeholders(0, 1))
    assert item.nbytes == tree_nbytes(item.payload) == 4
    receiver = ReceiverCache(1 << 22)
    receiver.resolve([wire("f", Fickle())])
    receiver.check_invariants()
    assert receiver.entries() == [("f", 4)]


def test_a_processor_raising_a_miss_is_not_retried() -> None:
    """Before: retried as though the engine had missed."""
    calls: list[object] = []

    def processor(content: object) -> ProcessedItem:
        calls.append(content)
        raise MultiModalCacheMissError(["inner"])

    front_end = FrontEnd(64, processor, tags=TagSource.for_tests(1))
    engine = Engine(64)
    with pytest.raises(ProcessorError) as caught:
        retry(lambda r: serve(front_end, engine, r), Request((RequestItem("a", 1),)),
              max_retries=3)
    assert calls == [1] and isinstance(caught.value.__cause__, MultiModalCacheMissError)
    assert front_end.sender.entries() == [] and front_end.outstanding() == ()


def test_record_probed_keeps_its_own_copy() -> None:
    """Before: the caller's dict was kept, so a later change to it changed what was sent."""
    front_end = FrontEnd(64, SerialProcessor(), tags=TagSource.for_tests(1))
    request = Request((RequestItem("a", 1),))
    processed = {"a": make_item(16, serial=1)}
    probed = front_end.record_probed(request, frozenset(), processed)
    processed["a"] = make_item(16, serial=2)
    message = front_end.update(probed)
    assert message.items[0].placeholders.offset == 1


def test_retry_async_refuses_a_sync_send_at_its_first_result() -> None:
    """A plain send cannot be told from a lambda returning a coroutine before it is called:
    its first result, not awaitable, is refused in one line naming retry (that call ran)."""
    world = World()
    with pytest.raises(BadInputError, match=r"expected an async function or a callable "
                                            r"returning an awaitable \(a plain send: use retry\)"):
        asyncio.run(retry_async(lambda r: serve(world.fe, world.engine, r),  # type: ignore[arg-type, return-value]
                                world.request))


def test_retry_async_accepts_a_lambda_returning_a_coroutine() -> None:
    world = World()
    inputs = asyncio.run(retry_async(lambda r: serve_async(world.afe, world.aengine, r),
                                     world.request))
    assert [i.identity for i in inputs] == [i.identity for i in world.request.items]
    slept: list[float] = []

    async def nap(seconds: float) -> None:
        slept.append(seconds)

    world.aengine.clear()  # P1 loses its cache: a miss, a backoff, a resend
    again = asyncio.run(retry_async(lambda r: serve_async(world.afe, world.aengine, r),
                                    world.request, media={"a": 1, "d": 4}, backoff=0.5,
                                    sleep=lambda s: nap(s)))
    assert [i.identity for i in again] == [i.identity for i in world.request.items]
    with pytest.raises(BadInputError, match=r"got sleep .* returning None"):
        world.aengine.clear()
        asyncio.run(retry_async(lambda r: serve_async(world.afe, world.aengine, r),
                                world.request, media={"a": 1, "d": 4}, backoff=0.5,
                                sleep=lambda s: None))


def test_retry_rejects_a_send_that_returns_a_coroutine_unawaited() -> None:
    world = World()
    before = world.state()
    with pytest.raises(BadInputError, match="expected a plain callable"):
        retry(lambda r: serve_async(world.afe, world.aengine, r), world.request)
    assert world.state() == before
