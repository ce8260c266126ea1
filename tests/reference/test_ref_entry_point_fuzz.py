"""Bad input found by a machine: every public entry point called with generated arguments.

``entry_fuzz`` (beside this file) finds the entry points by introspection and draws each
parameter's values from its annotation, good and hostile alike; ``check_call`` states the
contract of ``docs/reference.md`` ("Bad input"): a call raises a ``CacheError`` of at most
600 characters and changes nothing, or is accepted with every cache's invariants intact.
The planted-gap tests show that the harness, not told where to look, catches a validation
gap planted in each public class.
"""

from __future__ import annotations

import asyncio

import pytest
from entry_fuzz import (
    EXCLUDED,
    BrokenMapping,
    EntryPoint,
    EqRaises,
    HarnessViolation,
    HashRaises,
    IndexRaises,
    IntSub,
    IterRaises,
    LenLies,
    World,
    all_entry_points,
    arguments,
    check_call,
    entry_points,
    unknown_entry_points,
)
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from ref_helpers import forced_item, forced_request

from reference import (
    V0,
    V1,
    V2,
    V3,
    V4,
    BadInputError,
    BadInputTypeError,
    ByteLru,
    ClientError,
    Engine,
    ProbedRequest,
    Reply,
    Request,
    RequestItem,
    SenderCache,
    UnknownRequestError,
    resolution_order,
    serve,
    validate_budget,
)
from reference.aio import AsyncFrontEnd, serve_async

EXAMPLES = 30
"""Examples per entry point in CI (derandomized: the same examples on every run)."""

ENTRY_POINTS = {entry.name: entry for entry in entry_points()}
WORLD_VARIANTS = (V4, V4, V3, V2, V1, V0)
"""The variant of each example's world: the default (V4) most often, every other one too."""


def harness_settings(examples: int, *, shrink: bool = True) -> settings:
    return settings(
        max_examples=examples, derandomize=True, deadline=None, database=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate, *((Phase.shrink,) if shrink else ())),
        report_multiple_bugs=False,
    )


def test_every_entry_point_is_known() -> None:
    """Each exported function, constructor and public method is called by the harness or
    excluded with a reason; a parameter the harness cannot make values for fails here,
    naming the entry point."""
    assert unknown_entry_points() == []
    names = {entry.name for entry in all_entry_points()}
    assert set(EXCLUDED) <= names, set(EXCLUDED) - names  # no stale exclusion
    assert len(ENTRY_POINTS) >= 80


def test_a_new_public_method_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    def drain(self: object, thing: object) -> None: ...

    monkeypatch.setattr(Engine, "drain", drain, raising=False)
    assert "Engine.drain" in {entry.name for entry in entry_points()}
    assert unknown_entry_points() == []  # an object: anything will do
    drain.__annotations__["thing"] = type("Unknown", (), {})  # no strategy for its type
    assert any(line.startswith("Engine.drain: no strategy for parameter 'thing'")
               for line in unknown_entry_points())


def run_harness(entry: EntryPoint, examples: int, *, shrink: bool = True) -> None:
    @harness_settings(examples, shrink=shrink)
    @given(data=st.data())
    def one_call(data: st.DataObject) -> None:
        variant = data.draw(st.sampled_from(WORLD_VARIANTS), label="variant")
        check_call(entry, data.draw(arguments(entry), label="arguments"), variant)

    one_call()


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_an_entry_point_rejects_cleanly_or_keeps_the_invariants(name: str) -> None:
    run_harness(ENTRY_POINTS[name], EXAMPLES)


# --- what the harness found, each fixed in reference/ ------------------------------------------


def test_an_lru_key_whose_hash_or_eq_raises_is_rejected() -> None:
    """Before: the key's own RuntimeError escaped every key lookup of ``ByteLru`` (only the
    TypeError of an unhashable key was caught), and ``put`` of a key whose == raises, against
    a key it collides with, raised it after the size and value were checked."""
    lru: ByteLru[object, object] = ByteLru(64)
    lru.put("a", "value", 4)
    before = (lru.entries(), lru.items(), lru.stats())
    for key in (HashRaises(), EqRaises("a")):
        for method in (lru.__contains__, lru.get, lru.peek, lru.pop, lru.size_of, lru.touch):
            with pytest.raises(BadInputTypeError, match="expected a hashable key"):
                method(key)
        with pytest.raises(BadInputTypeError, match="expected a hashable key"):
            lru.put(key, "other", 4)
        for many in (lru.present, lru.get_all):
            with pytest.raises(BadInputTypeError, match="expected a hashable key"):
                many(["a", key])
    assert (lru.entries(), lru.items(), lru.stats()) == before


def test_a_collection_whose_iteration_raises_is_rejected() -> None:
    """Before: the iterable's own RuntimeError escaped every method taking a collection."""
    world = World()
    before = world.state()
    for method in (world.sender.probe, world.sender.invalidate, world.sender.update,
                   world.sender.retract, world.receiver.resolve, world.lru.present,
                   world.lru.get_all):
        with pytest.raises(BadInputTypeError, match="whose iteration raised RuntimeError"):
            method(IterRaises())  # type: ignore[arg-type]
    assert world.state() == before


def test_a_budget_whose_index_raises_is_rejected() -> None:
    """Before: the ``__index__``'s own ValueError escaped ``validate_budget`` (and every
    constructor taking a budget)."""
    for make in (validate_budget, ByteLru, SenderCache, Engine):
        with pytest.raises(BadInputTypeError, match="expected a positive int"):
            make(IndexRaises())  # type: ignore[arg-type]


def test_a_node_count_of_an_int_subclass_is_rejected() -> None:
    """Before: ``put_entry(..., nodes=IntSub(2))`` was accepted and stored a count that
    ``check_invariants`` then reported as out of [1, max_nodes]."""
    lru: ByteLru[str, str] = ByteLru(64)
    with pytest.raises(BadInputTypeError, match="got nodes"):
        lru.put_entry("a", "value", 4, IntSub(2))
    assert lru.entries() == [] and lru.stats().nodes == 0


def test_media_whose_lookups_raise_is_rejected() -> None:
    """Before: the mapping's own RuntimeError escaped ``Request.with_media`` (and ``retry``)."""
    request = Request((RequestItem("a"),))  # UUID-only: media is looked up for it
    with pytest.raises(BadInputTypeError, match="whose lookups raised RuntimeError"):
        request.with_media(BrokenMapping())


def test_a_forged_probed_request_is_rejected_before_it_is_read() -> None:
    """Before: ``FrontEnd.update`` read a ``ProbedRequest``'s request and hits before it
    checked that the record was one of its own, so a forged one raised a raw
    AttributeError or TypeError."""
    world = World()
    before = world.state()
    request_id = world.probed.request_id
    for forged in (ProbedRequest(request_id, None, "ab", {}),  # type: ignore[arg-type]
                   ProbedRequest(request_id, Request(()), print, {})):  # type: ignore[arg-type]
        for front_end in (world.fe, world.afe):
            with pytest.raises(UnknownRequestError):
                result = front_end.update(forged)
                if asyncio.iscoroutine(result):
                    asyncio.run(result)
    with pytest.raises(BadInputTypeError, match="got request id"):
        world.fe.update(ProbedRequest(HashRaises(), None, "ab", {}))  # type: ignore[arg-type]
    assert world.state() == before


# --- planted gaps: the harness, not told where, finds a gap planted in each public class --------


def _no_check(*args: object) -> None:
    return None


def _invalidating_first(self: AsyncFrontEnd, reply: Reply) -> None:
    """A ``handle_reply`` that invalidates what the reply names before the front end checks
    the reply (a change before the raise)."""
    missed = getattr(reply, "missed", ())
    if isinstance(missed, (tuple, list)):
        self.sender.invalidate({i for i in missed if type(i) is str and i})
    self.front_end.handle_reply(reply)


PLANTS: dict[str, tuple[str, object]] = {
    # class: (what is patched, with what)
    "ByteLru": ("reference.lru._validate_size", lambda size: size),  # negative sizes get in
    "SenderCache": ("reference.sender.check_exact", _no_check),  # a non-item gets in
    "ReceiverCache": ("reference.receiver.check_tag", _no_check),  # untagged payloads in V3
    "FrontEnd": ("reference.frontend._check_request",  # request items unchecked
                 lambda request: request.items),
    "Engine": ("reference.engine.check_exact", _no_check),  # a non-message gets in
    "AsyncFrontEnd": ("reference.aio.AsyncFrontEnd.handle_reply", _invalidating_first),
}


PLANT_EXAMPLES = 2 * EXAMPLES
"""Examples per entry point when looking for a planted gap (the first one found ends it)."""


def first_violation(owner: str) -> HarnessViolation | None:
    """Run the harness over every entry point of ``owner`` until one breaks the contract."""
    for entry in entry_points():
        if entry.owner != owner:
            continue
        try:
            run_harness(entry, PLANT_EXAMPLES, shrink=False)
        except HarnessViolation as violation:
            return violation
    return None


@pytest.mark.parametrize("owner", sorted(PLANTS))
def test_a_planted_validation_gap_is_caught(owner: str, monkeypatch: pytest.MonkeyPatch) -> None:
    target, replacement = PLANTS[owner]
    monkeypatch.setattr(target, replacement)
    violation = first_violation(owner)
    assert violation is not None, f"the gap planted at {target} went unnoticed"
    assert str(violation).startswith(f"{owner}.")


DEEP_EXAMPLES = 400
"""Examples per entry point in the deep run (``pytest -m slow``)."""


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_an_entry_point_keeps_the_contract_deeply(name: str) -> None:
    run_harness(ENTRY_POINTS[name], DEEP_EXAMPLES)


def test_a_sequence_whose_len_lies_is_ordered_by_its_flags() -> None:
    """Before: ``resolution_order`` indexed by ``len()``, and a sequence whose ``len()`` says
    more than it holds raised a raw IndexError."""
    assert resolution_order(V3, LenLies([])) == []
    assert resolution_order(V3, LenLies([False, True])) == [1, 0]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["serve", "serve_async"])
def test_a_rejected_request_leaves_the_engine_admissions_alone(asynchronous: bool) -> None:
    """Before: ``serve`` (and ``serve_async``) had the engine admit the front end's tag
    source, then the front end rejected the request: the engine kept the admission."""
    world = World()
    engine = world.aengine if not asynchronous else world.engine  # the other front end's
    before = world.state()
    for request in (None, forced_request((forced_item("", 1),)),
                    Request((RequestItem("unknown"),))):
        with pytest.raises((BadInputError, ClientError)):
            if asynchronous:
                asyncio.run(serve_async(world.afe, engine, request))  # type: ignore[arg-type]
            else:
                serve(world.fe, engine, request)  # type: ignore[arg-type]
    assert world.state() == before
    served = (asyncio.run(serve_async(world.afe, engine, Request((RequestItem("e", 5),))))
              if asynchronous else serve(world.fe, engine, Request((RequestItem("e", 5),))))
    assert len(served) == 1  # admitted by deliver, once prepared
    assert (world.afe if asynchronous else world.fe).sender.tags.nonce in engine._sources
