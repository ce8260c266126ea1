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
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch
from ref_helpers import ITEM_BYTES, SerialProcessor, make_item, snapshot

from reference import (
    V2,
    V3,
    BadInputError,
    ByteLru,
    CacheError,
    ClientError,
    Engine,
    FrontEnd,
    Message,
    Outgoing,
    Placeholders,
    ProbedRequest,
    ProcessedItem,
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


def self_referencing() -> dict[str, object]:
    tree: dict[str, object] = {}
    tree["self"] = tree
    return tree


def deep(levels: int) -> dict[str, object]:
    tree: dict[str, object] = {"x": torch.zeros(1)}
    for _ in range(levels):
        tree = {"n": tree}
    return tree


class World:
    """Everything an entry point may change, in a known state with records to leave alone."""

    def __init__(self) -> None:
        self.processor = SerialProcessor()
        self.fe = FrontEnd(8 * ITEM_BYTES, self.processor, tags=TagSource(1))
        self.engine = Engine(8 * ITEM_BYTES)
        serve(self.fe, self.engine, Request((RequestItem("a", 1), RequestItem("b", 2))))
        self.message = self.fe.prepare(Request((RequestItem("a", 1),)))
        self.probed = self.fe.probe(Request((RequestItem("c", 3),)))
        self.afe = AsyncFrontEnd(8 * ITEM_BYTES, self.processor, tags=TagSource(2),
                                 executor=InlineExecutor())
        self.amessage, self.aprobed = asyncio.run(self._warm_async())
        self.sender = SenderCache(8 * ITEM_BYTES, tags=TagSource(3))
        self.sender.get_and_update("a", make_item(16))
        self.receiver = ReceiverCache(8 * ITEM_BYTES)
        self.receiver.resolve([WireItem("a", {"x": torch.zeros(2)}, Placeholders(0, 1), 7)])
        self.lru: ByteLru[object, object] = ByteLru(64)
        self.lru.put("a", "value", 4)
        self.tags = TagSource(4)
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
            self.afe.outstanding(), view(self.sender), view(self.receiver),
            self.lru.entries(), self.lru.stats(), self.tags.nonce, self.tags._counter,
            len(self.processor.calls),
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
    "variant": lambda w: V3,
    "tags": lambda w: TagSource(9),
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
    "SenderCache.retract.items": [ALIEN, lambda w: "ab", lambda w: [5], lambda w: None],
    "ReceiverCache.resolve.items": [
        ALIEN, lambda w: "ab", lambda w: [5], lambda w: None,
        lambda w: [WireItem("z", self_referencing(), Placeholders(0, 1), 5)],  # type: ignore[arg-type]
        lambda w: [WireItem("z", {"x": torch.zeros(1)}, Placeholders(0, 1), 5),
                   WireItem("z", None, Placeholders(0, 1), 5)],
    ],
    "request": [ALIEN, lambda w: None,
                lambda w: Request([RequestItem("a", 1)]),  # type: ignore[arg-type]
                lambda w: Request((("a", 1),)),  # type: ignore[arg-type]
                lambda w: Request((RequestItem("a", 1), RequestItem("a", 1))),
                lambda w: Request((RequestItem("", 1),)),
                lambda w: Request((RequestItem(["a"], 1),)),  # type: ignore[arg-type]
                lambda w: Request((RequestItem("unknown-uuid-only"),))],
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
        "payload_wins", "tagged", "references_first", "late_miss_reprocess", "recovers")},
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
    signature = (inspect.signature(FUNCTIONS[owner]) if owner in FUNCTIONS
                 else inspect.signature(getattr(CLASSES[owner], method)))
    arguments = {name: lookup(VALID, owner, method, name)(world)
                 for name in parameters(signature)}
    arguments[param] = lookup(BAD, owner, method, param)[index](world)
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
    cache = SenderCache(64, tags=TagSource(1))
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
    cache = SenderCache(64, tags=TagSource(1))
    with pytest.raises(BadInputError) as caught:
        cache.probe([identity, identity])
    assert "f" * 17 not in str(caught.value) and "fffffffffffff..." in str(caught.value)
    from reference import MultiModalCacheMissError
    error = MultiModalCacheMissError([f"{i:064x}" for i in range(10)])
    assert len(str(error)) < 200 and "and 6 more" in str(error)
    assert error.identities[0] == "0" * 64  # the attribute keeps them whole
