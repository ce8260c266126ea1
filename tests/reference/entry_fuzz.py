"""A property-based harness for every public entry point of ``reference`` (and ``reference.aio``).

``entry_points()`` finds the entry points by introspection: every function and class that
``reference.__all__`` and ``reference.aio.__all__`` export, and for each class its constructor
and every public method defined in this package (inherited builtins such as ``tuple.count``
are not the package's). ``EXCLUDED`` names, with a reason, the ones that are not entry points
(plain values built in hot paths, validated where they are received); an entry point in
neither list, or one of whose parameters has an annotation ``strategy_for`` cannot read, makes
``unknown_entry_points()`` name it.

Each parameter's values come from its annotation (``typing.get_type_hints``), through
``TYPE_STRATEGIES``: for each type, good values (from a ``World`` in a known state, so that
calls go deep) mixed with hostile ones (subclasses of int and str, bool, numpy scalars, 0-d,
wrong-dtype, meta and expanded tensors, NaN, infinities, huge and negative numbers, objects
whose ``__hash__``, ``__eq__``, ``__index__`` or ``__iter__`` raise, None). A drawn value is a
``Recipe`` (a name and a function of the world), made in a fresh world per example, whose
caches run a drawn variant (V4, the default, most often; V0-V3 too).

``check_call`` states the property: the call raises a ``CacheError`` of at most
``MESSAGE_LIMIT`` characters and the world is exactly as before (a rejection), or it is
accepted and every cache's ``check_invariants()`` holds. The engine's miss and the legacy
variants' assertions are protocol outcomes, not rejections: invariants only. A processor's own
exception (``Boom``) may propagate, changing nothing. The error a ``retry`` ends with once
its ``send`` has sent (``World.sends``) is an outcome too: what the sends did stays done.
Anything else is a ``HarnessViolation``.
"""

from __future__ import annotations

import asyncio
import inspect
import typing
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any, TypeVar

import numpy as np
import torch
from hypothesis import strategies as st
from ref_helpers import ITEM_BYTES, SerialProcessor, deep, make_item, self_referencing, snapshot

import reference
import reference.aio
from reference import (
    V0,
    V2,
    V3,
    V4,
    ByteLru,
    CacheError,
    Engine,
    FrontEnd,
    Message,
    MultiModalCacheMissError,
    Outgoing,
    Placeholders,
    ProbedRequest,
    ProcessedItem,
    ReceiverCache,
    ReceiverCacheAssertionError,
    Reply,
    Request,
    RequestItem,
    SenderCache,
    SenderCacheAssertionError,
    TagSource,
    Variant,
    WireItem,
    serve,
    tree_nbytes,
)
from reference.aio import AsyncFrontEnd, InlineExecutor, serve_async

MESSAGE_LIMIT = 600
BUDGET = 8 * ITEM_BYTES


class HarnessViolation(AssertionError):
    """A call broke the contract: names the entry point, the arguments and what went wrong."""


class Boom(Exception):
    """A processor's own failure: user code, which may propagate (changing nothing)."""


# --- the world: every object an entry point may change, in a known state -------------------


class WorldProcessor(SerialProcessor):
    """The world's processor: ``SerialProcessor``, whose own failure on content it cannot
    process (an assertion) is the processor's, reported as ``Boom``."""

    def __call__(self, content: object) -> ProcessedItem:
        try:
            return super().__call__(content)
        except Exception as error:
            raise Boom(f"processor: {type(error).__name__}") from None


class World:
    """A front end and an engine that served a request (``a``, ``b``), with a message
    outstanding and a request probed; the asyncio front end likewise; standalone caches and
    an LRU holding ``a``; a tag source. Every cache and front end runs ``variant``."""

    def __init__(self, variant: Variant = V4) -> None:
        self.variant = variant
        self.processor = WorldProcessor()
        self.fe = FrontEnd(BUDGET, self.processor, variant=variant, tags=TagSource.for_tests(1))
        self.engine = Engine(BUDGET, variant=variant)
        serve(self.fe, self.engine, Request((RequestItem("a", 1), RequestItem("b", 2))))
        self.message = self.fe.prepare(Request((RequestItem("a", 1), RequestItem("d", 4))))
        self.probed = self.fe.probe(Request((RequestItem("c", 3),)))
        self.afe = AsyncFrontEnd(BUDGET, self.processor, tags=TagSource.for_tests(2),
                                 variant=variant, executor=InlineExecutor())
        self.aengine = Engine(BUDGET, variant=variant)
        self.amessage, self.aprobed = asyncio.run(self._warm_async())
        self.sender = SenderCache(BUDGET, variant=variant, tags=TagSource.for_tests(3))
        self.sender.get_and_update("a", make_item(16))
        self.receiver = ReceiverCache(BUDGET, variant=variant)
        self.receiver.resolve([WireItem("a", {"x": torch.zeros(2)}, Placeholders(0, 1),
                                        7 if variant.tagged else None)])
        self.lru: ByteLru[object, object] = ByteLru(64)
        self.lru.put("a", "value", 4)
        self.tags = TagSource.for_tests(4)
        self.sends = 0  # requests the harness's send callbacks sent (``retry``'s)

    async def _warm_async(self) -> tuple[Message, ProbedRequest]:
        await serve_async(self.afe, self.aengine, Request((RequestItem("a", 1),)))
        message = await self.afe.prepare(Request((RequestItem("a", 1),)))
        return message, await self.afe.probe(Request((RequestItem("c", 3),)))

    def instance(self, owner: str) -> object:
        return {
            "FrontEnd": self.fe, "Engine": self.engine, "AsyncFrontEnd": self.afe,
            "SenderCache": self.sender, "ReceiverCache": self.receiver, "ByteLru": self.lru,
            "TagSource": self.tags, "Request": Request((RequestItem("a", 1),
                                                        RequestItem("d", 4))),
            "InlineExecutor": InlineExecutor(),
        }[owner]

    def caches(self) -> list[Any]:
        return [self.fe.sender, self.engine.receiver, self.afe.sender, self.aengine.receiver,
                self.sender, self.receiver, self.lru]

    def state(self) -> tuple[object, ...]:
        """Everything observable: each cache (entries, entry objects, counters), the front
        ends' records (the record objects themselves), the tag sources' counters, the
        engines' admitted sources."""
        def records(front_end: FrontEnd) -> tuple[object, ...]:
            return (sorted((k, id(v)) for k, v in front_end._probed.items()),
                    sorted((k, tuple(sorted(v))) for k, v in front_end._outstanding.items()))
        return (
            snapshot(self.fe.sender), snapshot(self.engine.receiver), snapshot(self.afe.sender),
            snapshot(self.aengine.receiver), snapshot(self.sender), snapshot(self.receiver),
            self.lru.entries(), [(k, id(v)) for k, v in self.lru.items()], self.lru.stats(),
            records(self.fe), records(self.afe.front_end),
            [(t.nonce, t._counter) for t in (self.fe.sender.tags, self.afe.sender.tags,
                                             self.sender.tags, self.tags)],
            [sorted((n, id(s)) for n, s in e._sources.items())
             for e in (self.engine, self.aengine)],
        )

    def check_invariants(self, result: object) -> None:
        for cache in self.caches():
            cache.check_invariants()
        for attribute in ("sender", "receiver"):  # a front end or an engine just built
            inner = getattr(result, attribute, None)
            if isinstance(inner, (SenderCache, ReceiverCache)):
                inner.check_invariants()
        if isinstance(result, (ByteLru, SenderCache, ReceiverCache)):
            result.check_invariants()
        if isinstance(result, ProcessedItem) and result.nbytes != max(
                tree_nbytes(result.payload), 1):
            raise HarnessViolation(f"a ProcessedItem charged {result.nbytes} bytes, keeping "
                                   f"{tree_nbytes(result.payload)}")


class Recipe:
    """A drawn argument: made in the example's world (``make``), shown by ``name``."""

    def __init__(self, name: str, make: Callable[[World], object]) -> None:
        self.name = name
        self.make = make

    def __repr__(self) -> str:
        return self.name


def const(value: object, name: str | None = None) -> Recipe:
    return Recipe(name or _short_repr(value), lambda w: value)


def fresh(name: str, make: Callable[[], object]) -> Recipe:
    """A value made anew for each call (a generator, a mutable mapping, a new object)."""
    return Recipe(name, lambda w: make())


def world(name: str, make: Callable[[World], object]) -> Recipe:
    return Recipe(name, make)


def _short_repr(value: object) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


# --- hostile values ---------------------------------------------------------------------------


class IntSub(int):
    """An int subclass (counts, ids and tags must be plain ints)."""


class StrSub(str):
    """A str subclass (identities must be plain strs)."""


class Alien:
    def __repr__(self) -> str:
        return "Alien()"


class HashRaises:
    """Its ``__hash__`` raises a RuntimeError (not the TypeError of an unhashable)."""

    def __hash__(self) -> int:
        raise RuntimeError("hash")

    def __repr__(self) -> str:
        return "HashRaises()"


class EqRaises(str):
    """Hashes as "a" does, and its ``__eq__`` raises: a dict that holds "a" meets it."""

    def __hash__(self) -> int:
        return hash("a")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __ne__(self, other: object) -> bool:
        raise RuntimeError("ne")


class EqAlways:
    """Equal to everything, hashing as "a" does: a key that claims to be every key."""

    def __hash__(self) -> int:
        return hash("a")

    def __eq__(self, other: object) -> bool:
        return True

    def __repr__(self) -> str:
        return "EqAlways()"


class IndexRaises:
    """Its ``__index__`` raises a ValueError."""

    def __index__(self) -> int:
        raise ValueError("index")

    def __repr__(self) -> str:
        return "IndexRaises()"


class IterRaises:
    """An iterable whose ``__iter__`` raises a RuntimeError."""

    def __iter__(self) -> Iterator[object]:
        raise RuntimeError("iter")

    def __repr__(self) -> str:
        return "IterRaises()"


class LenLies(list[object]):
    """A list whose ``__len__`` says 1 whatever it holds."""

    def __len__(self) -> int:
        return 1


class BrokenMapping(Mapping[str, torch.Tensor]):
    """A mapping whose ``items()`` and ``__getitem__`` raise a raw error."""

    def __getitem__(self, key: str) -> torch.Tensor:
        raise RuntimeError("getitem")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("iter")

    def __len__(self) -> int:
        return 1

    def items(self) -> Any:
        raise RuntimeError("items")


def _generator(values: Sequence[object]) -> Iterator[object]:
    yield from values


HOSTILE: list[Recipe] = [
    const(None), const(Alien()), const(True), const(IntSub(1), "IntSub(1)"),
    const(StrSub("a"), "StrSub('a')"), const(np.int64(3), "np.int64(3)"),
    const(np.float64("nan"), "np.float64(nan)"), fresh("torch.tensor(1)", lambda: torch.tensor(1)),
    const(float("nan")), const(float("inf")), const(-1), const(10**400, "10**400"),
    const(HashRaises()), const(EqRaises("a"), "EqRaises('a')"), const(EqAlways()),
    const(IterRaises()),
    const(IndexRaises()), const(b"a"), fresh("[]", list), fresh("{}", dict),
]


def hostile() -> st.SearchStrategy[Recipe]:
    return st.sampled_from(HOSTILE)


INTS = st.sampled_from([
    const(0), const(1), const(3), const(64), const(-1), const(-(2**70), "-(2**70)"),
    const(2**32, "2**32"), const(2**64, "2**64"), const(10**400, "10**400"), const(True),
    const(False), const(IntSub(4), "IntSub(4)"), const(np.int64(4), "np.int64(4)"),
    const(np.uint8(4), "np.uint8(4)"), fresh("torch.tensor(4)", lambda: torch.tensor(4)),
    fresh("torch.tensor(4.0)", lambda: torch.tensor(4.0)),
    fresh("torch.tensor([4])", lambda: torch.tensor([4])), const(4.0), const(1.5),
    const(float("nan")), const(float("inf")), const(-float("inf")), const(IndexRaises()),
    const("4"), const(None),
])
IDENTITIES = ["a", "a", "b", "c", "d", "z"]  # "a": held by every cache of the world
VALID_STRS = st.sampled_from([const(i) for i in IDENTITIES])
STRS = st.one_of(  # known identities two times in three: calls that go deep
    VALID_STRS, VALID_STRS,
    st.sampled_from([
        const(""), const("a" * 5000, "'a' * 5000"), const("\ud800"), const("\x00"),
        const(StrSub("a"), "StrSub('a')"), const(np.str_("a"), "np.str_('a')"),
        const(EqRaises("a"), "EqRaises('a')"), const(b"a"), const(3), const(None),
        const(HashRaises()),
    ]),
)
FLOATS = st.one_of(
    st.sampled_from([const(0.0), const(0), const(0.001), const(1e308), const(-1.0),
                     const(float("nan")), const(float("inf")), const(10**400, "10**400"),
                     const(3601.0), const(np.float64(0.0), "np.float64(0.0)"),
                     fresh("torch.tensor(0.0)", lambda: torch.tensor(0.0)), const(True),
                     const("0"), const(None)]),
)
BOOLS = st.sampled_from([const(True), const(False), const(1), const(0), const(None),
                         const(np.bool_(True), "np.bool_(True)"), const("True"),
                         fresh("torch.tensor(True)", lambda: torch.tensor(True))])
ANY = st.one_of(STRS, INTS, hostile())


# tensors: good and hostile leaves, and payload mappings of them
TENSORS = st.sampled_from([
    fresh("zeros(2)", lambda: torch.zeros(2)), fresh("zeros(1)", lambda: torch.zeros(1)),
    fresh("tensor(3.0) (0-d)", lambda: torch.tensor(3.0)),
    fresh("zeros(0)", lambda: torch.zeros(0)),
    fresh("int8", lambda: torch.zeros(3, dtype=torch.int8)),
    fresh("bool", lambda: torch.ones(2, dtype=torch.bool)),
    fresh("complex64", lambda: torch.zeros(2, dtype=torch.complex64)),
    fresh("bfloat16", lambda: torch.zeros(2, dtype=torch.bfloat16)),
    fresh("nan", lambda: torch.full((2,), float("nan"))),
    fresh("inf", lambda: torch.full((2,), float("inf"))),
    fresh("requires_grad", lambda: torch.zeros(2, requires_grad=True)),
    fresh("non-contiguous view", lambda: torch.zeros(4, 4)[:, 1]),
    fresh("expand(10**12)", lambda: torch.zeros(1).expand(10**12)),
    fresh("meta", lambda: torch.empty(2, device="meta")),
    fresh("sparse", lambda: torch.zeros(2, 2).to_sparse()),
    fresh("Parameter", lambda: torch.nn.Parameter(torch.zeros(2))),
    fresh("ndarray", lambda: np.zeros(2)), const(1.0), const(None),
])


@st.composite
def payloads(draw: st.DrawFn) -> Recipe:
    kind = draw(st.integers(0, 9))
    if kind <= 5:
        leaves = draw(st.lists(TENSORS, min_size=0, max_size=3))
        keys = draw(st.lists(st.sampled_from([const("x"), const("y"), const("z"),
                                              const(StrSub("s"), "StrSub('s')"), const(1)]),
                             min_size=len(leaves), max_size=len(leaves)))
        nested = kind == 5
        name = "{" + ", ".join(f"{k}: {v}" for k, v in zip(keys, leaves, strict=True)) + "}"

        def make(w: World) -> object:
            tree = {k.make(w): v.make(w) for k, v in zip(keys, leaves, strict=True)}
            return {"n": tree} if nested else tree
        return Recipe("{'n': " + name + "}" if nested else name, make)
    return draw(st.sampled_from([
        fresh("self-referencing", self_referencing), fresh("40 levels deep", lambda: deep(40)),
        fresh("BrokenMapping()", BrokenMapping), const([]), const(None), const(Alien()),
        fresh("{'x': zeros(1)}", lambda: {"x": torch.zeros(1)}),
    ]))


PLACEHOLDERS = st.one_of(
    st.builds(lambda o, n: const(Placeholders(o, n)), st.integers(0, 3), st.integers(0, 3)),
    st.sampled_from([const((0, 1)), const(None), const(Alien())]),
)


def _item(nbytes: int) -> Recipe:
    return fresh(f"make_item({nbytes})", lambda: make_item(nbytes))


PROCESSED = st.one_of(st.sampled_from([_item(16), _item(8), _item(BUDGET + 8)]), hostile())


def _processed_dict(entries: list[tuple[Recipe, Recipe]]) -> Recipe:
    return Recipe("{" + ", ".join(f"{k}: {v}" for k, v in entries) + "}",
                  lambda w: {k.make(w): v.make(w) for k, v in entries})


PROCESSED_DICTS = st.one_of(
    st.lists(st.tuples(STRS, PROCESSED), max_size=3).map(_processed_dict),
    hostile(),
)
REPEATED_DICTS = st.one_of(  # per item index: a later item of an identity named twice
    st.just(const(None)),
    st.lists(st.tuples(INTS, PROCESSED), max_size=2).map(_processed_dict),
    hostile(),
)


TAGS = st.one_of(
    st.sampled_from([const(7), const(5), const(None), const(2**64, "2**64"),
                     const(IntSub(7), "IntSub(7)"), const(-5), const("7"),
                     world("fe's last tag", lambda w: w.message.items[0].tag)]),
    INTS,
)


def collections(element: st.SearchStrategy[Recipe],
                preferred: str = "list") -> st.SearchStrategy[Recipe]:
    """Collections of drawn elements, in every shape a caller may pass (``preferred``, the
    annotated one, half the time), and non-collections."""
    @st.composite
    def shaped(draw: st.DrawFn) -> Recipe:
        elements = draw(st.lists(element, max_size=4))
        shape = draw(st.one_of(st.just(preferred), st.sampled_from([
            "list", "tuple", "set", "frozenset", "generator", "LenLies"])))
        inner = ", ".join(map(repr, elements))

        def make(w: World) -> object:
            values = [e.make(w) for e in elements]
            if shape in ("set", "frozenset"):
                try:
                    return set(values) if shape == "set" else frozenset(values)
                except Exception:
                    return values  # unhashable or raising elements: a list instead
            return {"list": list, "tuple": tuple, "generator": _generator,
                    "LenLies": LenLies}[shape](values)
        return Recipe(f"{shape}[{inner}]", make)
    return st.one_of(shaped(), st.sampled_from([const("ab"), const("a"), const(None),
                                                const(IterRaises()), const(Alien()), const(5)]))


# --- values of the package's own types -------------------------------------------------------


GOOD_PAYLOAD = fresh("{'x': zeros(1)}", lambda: {"x": torch.zeros(1)})


@st.composite
def wire_items(draw: st.DrawFn) -> Recipe:
    if draw(st.booleans()):
        return draw(st.sampled_from([
            world("fe message item 0", lambda w: w.message.items[0]),
            world("fe message item 1", lambda w: w.message.items[1]),
            world("afe message item 0", lambda w: w.amessage.items[0]),
        ]))
    identity = draw(STRS)
    payload = draw(st.one_of(st.just(const(None)), st.just(GOOD_PAYLOAD), payloads()))
    placeholders = draw(st.one_of(st.just(const(Placeholders(0, 1))), PLACEHOLDERS))
    tag = draw(TAGS)
    return Recipe(f"WireItem({identity}, {payload}, {placeholders}, {tag})",
                  lambda w: WireItem(identity.make(w), payload.make(w),  # type: ignore[arg-type]
                                     placeholders.make(w), tag.make(w)))  # type: ignore[arg-type]


WIRE_ITEMS = st.one_of(wire_items(), hostile())


@st.composite
def outgoings(draw: st.DrawFn) -> Recipe:
    identity = draw(STRS)
    item = draw(st.one_of(st.just(const(None)), PROCESSED))
    content = draw(st.sampled_from([const(1), const(None), const(Alien())]))
    return Recipe(f"Outgoing({identity}, {item}, {content})",
                  lambda w: Outgoing(identity.make(w), item.make(w),  # type: ignore[arg-type]
                                     content.make(w)))


@st.composite
def request_items(draw: st.DrawFn) -> Recipe:
    identity = draw(STRS)
    content = draw(st.sampled_from([const(1), const(5), const(None), const(Alien()),
                                    const((1, BUDGET + 8), f"(1, {BUDGET + 8})")]))
    return Recipe(f"RequestItem({identity}, {content})",
                  lambda w: RequestItem(identity.make(w),  # type: ignore[arg-type]
                                        content.make(w)))


@st.composite
def requests(draw: st.DrawFn) -> Recipe:
    items = draw(st.lists(st.one_of(request_items(), request_items(), hostile()), max_size=4))
    shape = draw(st.sampled_from(["tuple", "tuple", "tuple", "list", "generator"]))
    # the resend mark: a first attempt most often, a resend (V4 reads it), hostile flags
    resend = draw(st.one_of(st.just(const(False)), st.just(const(True)), BOOLS))
    inner = ", ".join(map(repr, items))

    def make(w: World) -> object:
        values = [i.make(w) for i in items]
        built = {"tuple": tuple, "list": list, "generator": _generator}[shape](values)
        return Request(built, resend.make(w))  # type: ignore[arg-type]
    return Recipe(f"Request({shape}[{inner}], resend={resend})", make)


REQUESTS = st.one_of(requests(), st.sampled_from([
    world("the request of fe's message", lambda w: Request((RequestItem("a", 1),
                                                            RequestItem("d", 4)))),
]), hostile())


@st.composite
def messages(draw: st.DrawFn) -> Recipe:
    request_id = draw(st.one_of(REQUEST_IDS, INTS))
    items = draw(collections(WIRE_ITEMS))
    return Recipe(f"Message({request_id}, {items})",
                  lambda w: Message(request_id.make(w), items.make(w)))  # type: ignore[arg-type]


REQUEST_IDS = st.sampled_from([
    world("fe message id", lambda w: w.message.request_id),
    world("afe message id", lambda w: w.amessage.request_id),
    world("fe probed id", lambda w: w.probed.request_id),
    world("afe probed id", lambda w: w.aprobed.request_id),
    const(999),
])
MESSAGES = st.one_of(
    st.sampled_from([world("fe message", lambda w: w.message),
                     world("afe message", lambda w: w.amessage)]),
    messages(), hostile(),
)


@st.composite
def replies(draw: st.DrawFn) -> Recipe:
    request_id = draw(st.one_of(REQUEST_IDS, INTS))
    missed = draw(collections(STRS, "tuple"))
    return Recipe(f"Reply({request_id}, {missed})",
                  lambda w: Reply(request_id.make(w), missed.make(w)))  # type: ignore[arg-type]


REPLIES = st.one_of(replies(), hostile())


@st.composite
def forged_probed(draw: st.DrawFn) -> Recipe:
    request_id = draw(st.one_of(REQUEST_IDS, INTS))
    request = draw(REQUESTS)
    hits = draw(collections(STRS))
    processed = draw(PROCESSED_DICTS)
    return Recipe(f"ProbedRequest({request_id}, {request}, {hits}, {processed})",
                  lambda w: ProbedRequest(
                      request_id.make(w), request.make(w),  # type: ignore[arg-type]
                      hits.make(w), processed.make(w)))  # type: ignore[arg-type]


PROBED = st.one_of(
    st.sampled_from([world("fe probed", lambda w: w.probed),
                     world("afe probed", lambda w: w.aprobed)]),
    forged_probed(), hostile(),
)


def _serial() -> SerialProcessor:
    return WorldProcessor()


async def _async_processor(content: object) -> ProcessedItem:
    return make_item(16)


def _boom(content: object) -> ProcessedItem:
    raise Boom("processor")


def _miss(content: object) -> ProcessedItem:
    raise MultiModalCacheMissError(["inner"])


def _wrong(content: object) -> object:
    return 5


def _clearing(w: World) -> Callable[[object], ProcessedItem]:
    """A processor that clears every shadow of the world before it returns (re-entrant)."""
    def processor(content: object) -> ProcessedItem:
        w.fe.clear()
        w.afe.clear()
        w.sender.clear()
        return make_item(16)
    return processor


PROCESSORS = st.one_of(
    st.sampled_from([
        world("world's processor", lambda w: w.processor), fresh("SerialProcessor()", _serial),
        const(_async_processor, "async processor"), const(_boom, "raising Boom"),
        const(_miss, "raising a miss"), const(_wrong, "returning 5"),
        world("clearing processor", _clearing),
    ]),
    hostile(),
)


def _serve_send(w: World) -> Callable[[Request], object]:
    def send(request: Request) -> object:
        w.sends += 1
        return serve(w.fe, w.engine, request)
    return send


def _coroutine_send(w: World) -> Callable[[Request], object]:
    return lambda request: serve_async(w.afe, w.aengine, request)  # rejected unawaited


def _async_serve(w: World) -> Callable[[Request], Awaitable[object]]:
    async def send(request: Request) -> object:
        w.sends += 1
        return await serve_async(w.afe, w.aengine, request)
    return send


def _clearing_send(w: World) -> Callable[[Request], object]:
    def send(request: Request) -> object:
        w.sends += 1
        w.fe.probe_shadow(request)  # a request the front end rejects changes nothing
        w.engine.clear()  # every attempt misses on its references
        return serve(w.fe, w.engine, request)
    return send


SENDS = st.one_of(st.sampled_from([
    world("serve on fe", _serve_send), world("serve_async, unawaited", _coroutine_send),
    world("async serve", _async_serve), world("serve after an engine clear", _clearing_send),
]), hostile())


async def _async_sleep(seconds: float) -> None:
    return None


SLEEPS = st.one_of(st.sampled_from([
    const(lambda seconds: None, "no-op sleep"), const(_async_sleep, "async no-op sleep"),
]), hostile())
CALLABLES = st.one_of(st.sampled_from([
    const(lambda *a, **k: None, "lambda: None"), const(int, "int"),
    const(_boom, "raising Boom"),
]), hostile())
VARIANTS = st.one_of(
    st.sampled_from([const(V0), const(V2), const(V3), const(V4)]),
    st.builds(lambda a, b, c, d, e: const(Variant("Vx", a, b, c, d,
                                                  resends_bypass_shadow=e)),
              st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans()),
    st.sampled_from([const("V3"), const(None), const(Alien())]),
)
TAG_SOURCES = st.one_of(st.sampled_from([
    fresh("TagSource.for_tests(9)", lambda: TagSource.for_tests(9)),
    world("fe's tag source", lambda w: w.fe.sender.tags),
    world("afe's tag source", lambda w: w.afe.sender.tags),
    fresh("TagSource.for_tests(1)", lambda: TagSource.for_tests(1)),
]), hostile())
EXECUTORS = st.one_of(st.sampled_from([const(None), fresh("InlineExecutor()", InlineExecutor)]),
                      hostile())
FRONT_ENDS = st.one_of(st.sampled_from([world("fe", lambda w: w.fe),
                                        world("afe", lambda w: w.afe)]), hostile())
ASYNC_FRONT_ENDS = FRONT_ENDS
ENGINES = st.one_of(st.sampled_from([
    world("engine", lambda w: w.engine), world("aengine", lambda w: w.aengine),
    fresh("Engine(64, variant=V2)", lambda: Engine(64, variant=V2)),
]), hostile())
MEDIA = st.one_of(
    st.lists(st.tuples(STRS, st.sampled_from([const(1), const(None), const(Alien())])),
             max_size=3).map(lambda kv: Recipe(
                 "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}",
                 lambda w: {k.make(w): v.make(w) for k, v in kv})),
    st.sampled_from([fresh("BrokenMapping()", BrokenMapping), const(["a"])]),
    hostile(),
)
BUDGETS = st.one_of(st.sampled_from([const(64), const(BUDGET), const(1), const(1 << 40)]),
                    INTS)
NONCES = st.one_of(st.sampled_from([const(9), const(2**32 - 1, "2**32 - 1")]), INTS)


# --- annotations to strategies ---------------------------------------------------------------

K = TypeVar("K")
T = TypeVar("T")

TYPE_STRATEGIES: dict[object, st.SearchStrategy[Recipe]] = {
    int: INTS, str: STRS, float: FLOATS, bool: BOOLS, object: ANY,
    Variant: VARIANTS, TagSource: TAG_SOURCES, Request: REQUESTS, Message: MESSAGES,
    Reply: REPLIES, ProbedRequest: PROBED, WireItem: WIRE_ITEMS, ProcessedItem: PROCESSED,
    Placeholders: PLACEHOLDERS, Outgoing: st.one_of(outgoings(), hostile()), Engine: ENGINES,
    FrontEnd: FRONT_ENDS,    AsyncFrontEnd: ASYNC_FRONT_ENDS, Executor: EXECUTORS,
    reference.TensorTree: payloads(),
    Callable[[object], ProcessedItem]: PROCESSORS,
    Callable[[Request], Any]: SENDS,
    Callable[[float], Any]: SLEEPS,
    Callable[..., Any]: CALLABLES,
    Mapping[str, object]: MEDIA,
    dict[str, ProcessedItem]: PROCESSED_DICTS,
    dict[int, ProcessedItem] | None: REPEATED_DICTS,
}
# A few parameters read better with values of their own than with their type's.
PARAMETER_STRATEGIES: dict[str, st.SearchStrategy[Recipe]] = {
    "budget": BUDGETS, "nonce": NONCES, "request_id": st.one_of(REQUEST_IDS, INTS),
    "tag": TAGS, "size": st.one_of(st.sampled_from([const(4), const(0)]), INTS),
    "nodes": st.one_of(st.sampled_from([const(1), const(2)]), INTS),
    "max_retries": st.one_of(st.sampled_from([const(0), const(2)]), INTS),
}
COLLECTION_ORIGINS = {Sequence, Iterable, tuple, list, frozenset, set}


def strategy_for(annotation: object, name: str) -> st.SearchStrategy[Recipe]:
    """The values of a parameter named ``name`` annotated ``annotation``; raises ``LookupError``
    naming the annotation if the harness does not know how to make them."""
    if name in PARAMETER_STRATEGIES:
        return PARAMETER_STRATEGIES[name]
    if annotation in TYPE_STRATEGIES:
        return TYPE_STRATEGIES[annotation]
    if isinstance(annotation, TypeVar):  # ByteLru's keys and values: anything
        return ANY
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        return st.one_of([st.just(const(None)) if a is type(None) else strategy_for(a, name)
                          for a in arguments])
    if origin is Callable or origin is typing.Callable:  # type: ignore[comparable-overlap]
        parameters, _ = arguments
        key = Callable[..., Any] if parameters is Ellipsis else Callable[
            parameters, ProcessedItem if arguments[1] is ProcessedItem else Any]
        if key in TYPE_STRATEGIES:
            return TYPE_STRATEGIES[key]
    if origin in (Mapping, dict):
        key = Mapping[arguments] if origin is Mapping else dict[arguments]  # type: ignore[valid-type]
        if key in TYPE_STRATEGIES:
            return TYPE_STRATEGIES[key]
    if origin in COLLECTION_ORIGINS and arguments:
        preferred = origin.__name__ if origin in (tuple, list, frozenset, set) else "list"
        return collections(strategy_for(arguments[0], name), preferred)
    raise LookupError(f"no strategy for parameter {name!r} annotated {annotation!r}")


# --- the entry points ------------------------------------------------------------------------

PUBLIC_DUNDERS = {"__init__", "__contains__", "__len__", "__call__", "__getitem__"}
EXCLUDED: dict[str, str] = {
    **{f"{name}.__init__": "a plain value, built in hot paths, validated where received"
       for name in ("CacheStats", "Message", "ModelInput", "Outgoing", "ProbedRequest", "Reply",
                    "Request", "RequestItem", "ShadowEntry", "WireItem", "ReceiverEntry",
                    "Resolution")},
    "ReceiverEntry.of": "builds a receiver entry from a payload the cache prepared",
    "ReceiverEntry.edited": "reads a receiver entry's own tensors",
}


class EntryPoint(typing.NamedTuple):
    """``owner`` (a function's or a class's name) and ``method`` ("" for a function)."""

    owner: str
    method: str
    target: Any  # the function, or the class

    @property
    def name(self) -> str:
        return f"{self.owner}.{self.method}" if self.method else self.owner

    def function(self) -> Callable[..., Any]:
        if not self.method:
            return self.target  # type: ignore[no-any-return]
        return getattr(self.target, self.method)  # type: ignore[no-any-return]

    def signature(self) -> inspect.Signature:
        return inspect.signature(self.function())

    def parameters(self) -> list[inspect.Parameter]:
        return [p for p in self.signature().parameters.values()
                if p.name not in ("self", "cls")
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def exported() -> dict[str, object]:
    names = {name: getattr(reference, name) for name in reference.__all__}
    names.update({name: getattr(reference.aio, name) for name in reference.aio.__all__})
    return names


def all_entry_points() -> list[EntryPoint]:
    """Every function, constructor and public method the package exports, excluded ones
    included; errors are raised by the package, not called with a caller's input."""
    found: list[EntryPoint] = []
    for name, value in sorted(exported().items()):
        if inspect.isfunction(value):
            found.append(EntryPoint(name, "", value))
        elif inspect.isclass(value) and not issubclass(value, BaseException):
            for method in sorted(dir(value)):
                if method.startswith("_") and method not in PUBLIC_DUNDERS:
                    continue
                definer = next((c for c in value.__mro__ if method in vars(c)), None)
                if method == "__init__":  # every class's constructor, its own or not
                    found.append(EntryPoint(name, method, value))
                    continue
                if definer is None or not definer.__module__.startswith("reference"):
                    continue
                member = inspect.getattr_static(value, method)
                if isinstance(member, property) or not callable(getattr(value, method)):
                    continue
                found.append(EntryPoint(name, method, value))
    return found


def entry_points() -> list[EntryPoint]:
    """The entry points the harness calls (``all_entry_points`` but ``EXCLUDED``)."""
    return [e for e in all_entry_points() if e.name not in EXCLUDED]


def unknown_entry_points() -> list[str]:
    """Entry points the harness cannot call: a parameter whose annotation it cannot read."""
    unknown = []
    for entry in entry_points():
        try:
            argument_strategies(entry)
        except (LookupError, NameError, TypeError) as error:
            unknown.append(f"{entry.name}: {error}")
    return unknown


def argument_strategies(entry: EntryPoint) -> dict[str, st.SearchStrategy[Recipe]]:
    hints = typing.get_type_hints(entry.function())
    strategies = {}
    for parameter in entry.parameters():
        if parameter.name not in hints:
            raise LookupError(f"parameter {parameter.name!r} has no annotation")
        strategy = strategy_for(hints[parameter.name], parameter.name)
        if parameter.default is not parameter.empty:  # sometimes left out
            strategy = st.one_of(st.just(OMITTED), strategy)
        strategies[parameter.name] = strategy
    return strategies


OMITTED = const("<default>")


def arguments(entry: EntryPoint) -> st.SearchStrategy[dict[str, Recipe]]:
    return st.fixed_dictionaries(argument_strategies(entry))


# --- one call and its property ---------------------------------------------------------------

PROTOCOL_OUTCOMES = (MultiModalCacheMissError, SenderCacheAssertionError,
                     ReceiverCacheAssertionError)


def make_arguments(w: World, recipes: dict[str, Recipe]) -> dict[str, object] | None:
    """The drawn arguments made in ``w``; None if one cannot be made (a dict of keys whose
    hash raises: the caller could not have built it either)."""
    try:
        return {name: recipe.make(w) for name, recipe in recipes.items()
                if recipe is not OMITTED}
    except Exception:
        return None


def call(entry: EntryPoint, w: World, values: dict[str, object]) -> object:
    if not entry.method:
        target: Callable[..., Any] = entry.target
    elif entry.method == "__init__":
        target = entry.target
    elif isinstance(inspect.getattr_static(entry.target, entry.method), (classmethod,
                                                                           staticmethod)):
        target = getattr(entry.target, entry.method)
    else:
        target = getattr(w.instance(entry.owner), entry.method)
    signature = inspect.signature(target)
    positional = [values.pop(p.name) for p in signature.parameters.values()
                  if p.kind is p.POSITIONAL_ONLY and p.name in values]
    result = target(*positional, **values)
    if inspect.iscoroutine(result):
        result = asyncio.run(result)
    return result


def check_call(entry: EntryPoint, recipes: dict[str, Recipe], variant: Variant = V4) -> None:
    """One call of ``entry`` with ``recipes`` made in a fresh world; raise
    ``HarnessViolation`` if it breaks the contract (see the module docstring)."""
    w = World(variant)
    values = make_arguments(w, recipes)
    if values is None:
        return
    before = w.state()
    shown = (f"{entry.name}({', '.join(f'{k}={v!r}' for k, v in recipes.items())})"
             f" in a {variant} world")
    try:
        result = call(entry, w, values)
    except Boom:  # the processor's own failure
        if w.state() != before:
            raise HarnessViolation(
                f"{shown} raised the processor's error after a change") from None
        return
    except CacheError as error:
        text = "\n".join([str(error), *getattr(error, "__notes__", [])])
        if len(text) > MESSAGE_LIMIT:
            raise HarnessViolation(
                f"{shown} raised {type(error).__name__} of {len(text)} characters") from error
        if isinstance(error, PROTOCOL_OUTCOMES) or w.sends:  # or what a send ended with
            _invariants(w, None, shown)
            return
        if w.state() != before:
            raise HarnessViolation(
                f"{shown} raised {type(error).__name__} ({text[:200]}) after changing the "
                "world") from error
        _invariants(w, None, shown)
        return
    except Exception as error:
        raise HarnessViolation(
            f"{shown} raised {type(error).__name__}: {str(error)[:200]}, expected a "
            "reference.errors.CacheError or acceptance") from error
    _invariants(w, result, shown)


def _invariants(w: World, result: object, shown: str) -> None:
    try:
        w.check_invariants(result)
    except HarnessViolation:
        raise
    except Exception as error:
        raise HarnessViolation(f"{shown} left a cache broken: {type(error).__name__}: "
                               f"{str(error)[:300]}") from error
