"""Memory the budget really bounds (reference.items): what an entry keeps alive is what it is
charged; tensors without data and unsupported layouts are rejected; autograd is detached;
zero-byte entries are bounded; an edited served tensor is never served again."""

from __future__ import annotations

import ctypes
import gc

import pytest
import torch
from ref_helpers import snapshot

from reference import (
    MIN_ENTRY_BYTES,
    V2,
    V3,
    Engine,
    FrontEnd,
    InvalidPayloadError,
    InvariantViolationError,
    Message,
    MultiModalCacheMissError,
    Placeholders,
    ProcessedItem,
    ReceiverCache,
    Request,
    RequestItem,
    SenderCache,
    TagSource,
    UnsupportedTensorError,
    WireItem,
    retry,
    serve,
)
from reference import items as items_module


def storage_bytes_kept(cache: ReceiverCache) -> int:
    """Bytes of the distinct storages the receiver's cached tensors keep alive."""
    storages: dict[int, int] = {}
    for _, entry in cache.items():
        for tensor in entry.leaves:
            storage = tensor.untyped_storage()
            storages[storage.data_ptr()] = storage.nbytes()
    return sum(storages.values())


def wire(identity: str, payload: dict[str, torch.Tensor], tag: int = 1) -> WireItem:
    return WireItem(identity, payload, Placeholders(0, 1), tag)


def test_a_view_is_stored_as_a_compact_copy_charged_its_own_bytes() -> None:
    big = torch.zeros(1 << 20, dtype=torch.uint8)
    item = ProcessedItem({"x": big[100:110]}, Placeholders(0, 1))
    kept = item.payload["x"]
    assert isinstance(kept, torch.Tensor)
    assert item.nbytes == 10 == kept.untyped_storage().nbytes()
    assert kept.untyped_storage().data_ptr() != big.untyped_storage().data_ptr()


def test_a_tensor_that_owns_its_storage_is_kept_as_given() -> None:
    """The tensor is not copied; the mapping is (the item's own, so that the caller changing
    its dict later changes nothing recorded or sent: tests/reference/test_ref_pair.py)."""
    tensor = torch.zeros(8)
    payload = {"x": tensor}
    item = ProcessedItem(payload, Placeholders(0, 1))
    assert item.payload["x"] is tensor and item.payload == payload
    assert item.payload is not payload


def test_an_expanded_tensor_is_materialised_and_charged_what_it_then_owns() -> None:
    expanded = torch.zeros(1, dtype=torch.float32).expand(1000)
    assert expanded.untyped_storage().nbytes() == 4
    item = ProcessedItem({"x": expanded}, Placeholders(0, 1))
    kept = item.payload["x"]
    assert isinstance(kept, torch.Tensor)
    assert item.nbytes == 4000 == kept.untyped_storage().nbytes()
    cache = ReceiverCache(1 << 16)
    cache.resolve([wire("a", {"x": expanded})])
    assert cache.entries() == [("a", 4000)] and storage_bytes_kept(cache) == 4000


def cache_views_of_large_tensors(budget: int = 1000) -> tuple[Engine, int, int | None]:
    """Serve 100 10-byte views of distinct 1 MiB tensors through a pair of caches of
    ``budget`` bytes; return the engine, the storage bytes its cache keeps alive, and the
    growth of the heap in use (None where glibc's ``mallinfo2`` is not available)."""
    front_end = FrontEnd(budget, lambda big: ProcessedItem({"x": big[:10]}, Placeholders(0, 10)))
    engine = Engine(budget)
    gc.collect()
    heap_before = _heap_bytes()
    for index in range(100):
        big = torch.ones(1 << 20, dtype=torch.uint8)
        serve(front_end, engine, Request((RequestItem(f"img-{index}", big),)))
        del big
    gc.collect()
    heap_after = _heap_bytes()
    growth = None if heap_before is None or heap_after is None else heap_after - heap_before
    return engine, storage_bytes_kept(engine.receiver), growth


def test_views_of_large_tensors_keep_at_most_the_budget_alive() -> None:
    """Retained storage is within the budget (before: 100 MiB for a 1,000-byte budget), and
    the heap in use (``mallinfo2``: allocated bytes; RSS would also count what the allocator
    keeps for reuse) grows by less than 2 MiB, not by the 1 MiB tensors behind the views.
    The per-entry bookkeeping (about 300 bytes per entry per side, not charged) is in it."""
    engine, kept, growth = cache_views_of_large_tensors(budget=1000)
    assert engine.stats().entries == 100 and engine.stats().bytes_in_use == 1000
    assert kept <= 1000
    if growth is not None:
        assert growth < 2 << 20, f"heap grew by {growth} bytes"


def test_the_memory_test_fails_when_views_are_kept_as_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check above can fail: with compaction disabled (every tensor "owns exactly" its
    storage), the same run keeps the 1 MiB storages alive."""
    monkeypatch.setattr(items_module, "_owns_exactly", lambda tensor: True)
    engine, kept, growth = cache_views_of_large_tensors(budget=1000)
    assert engine.stats().bytes_in_use == 1000 and kept == 100 << 20
    if growth is not None:
        assert growth > 90 << 20
    engine.clear()


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def _heap_bytes() -> int | None:
    """Bytes malloc has handed out and not taken back (glibc 2.33+), None elsewhere."""
    try:
        mallinfo2 = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return None
    mallinfo2.restype = _MallInfo2
    info = mallinfo2()
    return int(info.uordblks + info.hblkhd)


@pytest.mark.parametrize(
    ("tensor", "kind"),
    [
        (torch.empty(4, device="meta"), "meta"),
        (torch.zeros(4, 4).to_sparse(), "sparse_coo"),
        (torch.zeros(4, 4).to_sparse_csr(), "sparse_csr"),
        (torch.quantize_per_tensor(torch.zeros(4), 0.1, 0, torch.qint8), "quantized"),
    ],
    ids=["meta", "sparse_coo", "sparse_csr", "quantized"],
)
def test_tensors_without_data_and_unsupported_layouts_are_rejected(
    tensor: torch.Tensor, kind: str
) -> None:
    match = rf"got payload leaf 'x' = a {kind} tensor, expected a dense strided tensor"
    with pytest.raises(UnsupportedTensorError, match=match):
        ProcessedItem({"x": tensor}, Placeholders(0, 1))
    assert issubclass(UnsupportedTensorError, InvalidPayloadError)
    cache = ReceiverCache(1 << 16)
    cache.resolve([wire("a", {"y": torch.zeros(2)})])
    before = snapshot(cache)
    with pytest.raises(UnsupportedTensorError):
        cache.resolve([WireItem("a", None, Placeholders(0, 1), 1), wire("b", {"x": tensor})])
    assert snapshot(cache) == before


def test_a_nested_unsupported_tensor_is_named_by_its_path() -> None:
    with pytest.raises(UnsupportedTensorError, match=r"'outer.x' = a meta tensor"):
        ProcessedItem({"outer": {"x": torch.empty(2, device="meta")}}, Placeholders(0, 1))


def test_tensors_that_require_grad_are_detached_on_both_sides() -> None:
    weights = torch.ones(4, requires_grad=True)
    graph = weights * 2  # carries a grad_fn: caching it would keep the graph alive
    item = ProcessedItem({"x": graph}, Placeholders(0, 1))
    kept = item.payload["x"]
    assert isinstance(kept, torch.Tensor)
    assert not kept.requires_grad and kept.grad_fn is None
    cache = ReceiverCache(1 << 16)
    served = cache.get_and_update(wire("a", {"x": graph}))
    for tensor in (served["x"], cache.items()[0][1].payload["x"]):
        assert isinstance(tensor, torch.Tensor)
        assert not tensor.requires_grad and tensor.grad_fn is None


@pytest.mark.parametrize("side", ["sender", "receiver"])
def test_zero_byte_entries_are_bounded_by_the_budget(side: str) -> None:
    """Before: 20,000 zero-byte entries under budget 1. Each entry is charged at least
    MIN_ENTRY_BYTES, so budget B holds at most B entries."""
    budget = 3
    item = ProcessedItem({"x": torch.zeros(0)}, Placeholders(0, 1))
    assert item.nbytes == MIN_ENTRY_BYTES == 1
    if side == "sender":
        sender = SenderCache(budget, tags=TagSource.for_tests(1))
        for index in range(2000):
            sender.get_and_update(f"k{index}", item)
        stats = sender.stats()
    else:
        receiver = ReceiverCache(budget)
        for index in range(2000):
            receiver.resolve([wire(f"k{index}", {"x": torch.zeros(0)})])
        stats = receiver.stats()
    assert stats.entries == budget and stats.bytes_in_use == budget


def test_sender_and_receiver_charge_a_view_alike() -> None:
    """Both sides apply the same rules, so compaction cannot desynchronise them (D9)."""
    big = torch.zeros(64, dtype=torch.float32)
    front_end = FrontEnd(1 << 10, lambda _: ProcessedItem({"x": big[3:7].expand(2, 4)},
                                                          Placeholders(0, 1)))
    engine = Engine(1 << 10)
    serve(front_end, engine, Request((RequestItem("a", 0),)))
    assert front_end.sender.entries() == engine.receiver.entries() == [("a", 32)]
    engine.receiver.check_invariants()


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t.add_(1),
        lambda t: t[:1].fill_(7),  # through a view: views share the version counter
        lambda t: t.resize_(64),
        lambda t: t.copy_(torch.full_like(t, 3)),
    ],
    ids=["add_", "view-fill_", "resize_", "copy_"],
)
def test_a_served_tensor_edited_in_place_is_never_served_again(edit: object) -> None:
    """The engine serves its cached tensors (no copy); an edit through torch bumps their
    version counter, so the next reference is a miss, the front end invalidates it and the
    client's retry resends the data: the edited tensor is not paired again."""
    front_end = FrontEnd(1 << 10, lambda c: ProcessedItem(
        {"x": torch.full((4,), float(c))}, Placeholders(0, 4)), variant=V3)
    engine = Engine(1 << 10, variant=V3)
    request = Request((RequestItem("a", 5),))
    first = serve(front_end, engine, request)
    edit(first[0].payload["x"])  # type: ignore[operator]
    with pytest.raises(InvariantViolationError, match="edited in place after caching"):
        engine.receiver.check_invariants()
    with pytest.raises(MultiModalCacheMissError):
        serve(front_end, engine, request)
    assert engine.receiver.entries() == [] and front_end.sender.entries() == []
    again = retry(lambda r: serve(front_end, engine, r), request)
    assert again[0].payload["x"].tolist() == [5.0] * 4  # type: ignore[union-attr]
    engine.receiver.check_invariants()


def test_an_edited_entry_yields_to_a_payload_where_the_cache_wins() -> None:
    """V0/V1 ("the cache wins") do not keep serving an edited cached tensor either."""
    from reference import V1
    cache = ReceiverCache(1 << 10, variant=V1)
    served = cache.get_and_update(WireItem("a", {"x": torch.zeros(2)}, Placeholders(0, 1)))
    served["x"].add_(1)  # type: ignore[union-attr]
    fresh = {"x": torch.zeros(2)}
    assert cache.get_and_update(WireItem("a", fresh, Placeholders(0, 1)))["x"] is fresh["x"]
    cache.check_invariants()


def test_check_invariants_reports_a_charge_the_tensors_no_longer_have() -> None:
    cache = ReceiverCache(1 << 10, variant=V2)
    cache.resolve([WireItem("a", {"x": torch.zeros(4)}, Placeholders(0, 1))])
    cache._lru._sizes["a"] = 8  # a recorded charge that is not the tensors' (a corrupted cache)
    cache._lru._bytes_in_use = 8
    with pytest.raises(InvariantViolationError, match="got 16 bytes in the tensors of 'a', "
                       "expected its recorded charge 8"):
        cache.check_invariants()


def test_served_payloads_are_read_only_mappings() -> None:
    cache = ReceiverCache(1 << 10)
    sent = {"x": torch.zeros(2), "nested": {"y": torch.zeros(1)}}
    served = cache.get_and_update(wire("a", sent))
    with pytest.raises(TypeError):
        served["z"] = torch.zeros(1)  # type: ignore[index]
    with pytest.raises(TypeError):
        served["nested"]["y"] = torch.zeros(3)  # type: ignore[index]
    sent["x"] = torch.zeros(100)  # the sender's dict is not the cache's
    cache.check_invariants()
    assert cache.entries() == [("a", 12)]


def test_an_engine_message_with_an_unsupported_tensor_changes_nothing() -> None:
    engine = Engine(1 << 10)
    before = snapshot(engine.receiver)
    message = Message(1, (wire("a", {"x": torch.empty(2, device="meta")}),))
    with pytest.raises(UnsupportedTensorError):
        engine.receive(message)
    assert snapshot(engine.receiver) == before


def test_the_node_budget_bounds_entries_and_is_an_invariant() -> None:
    """Each entry takes 1 + tensors + nested mappings nodes; ``max_nodes`` bounds their sum:
    least-recent entries are evicted for nodes as for bytes, an entry of more nodes than the
    whole bound is not cached (``oversize``), and ``check_invariants`` reports a node count
    that no longer adds up (a check that can fail)."""
    from reference import ByteLru, InvariantViolationError
    lru: ByteLru[str, str] = ByteLru(1 << 20, max_nodes=6)
    for key in "abcd":
        lru.put_entry(key, key, 0, 2)
    assert [k for k, _ in lru.entries()] == ["b", "c", "d"] and lru.stats().evictions == 1
    assert lru.stats().nodes == 6 and lru.stats().max_nodes == 6
    assert not lru.put_entry("big", "big", 0, 7) and lru.stats().oversize == 1
    lru.check_invariants()
    lru._nodes_in_use = 5  # a corrupted count
    with pytest.raises(InvariantViolationError, match="nodes_in_use 5 != sum of node counts"):
        lru.check_invariants()


def test_both_sides_count_nodes_alike_and_stay_mirrored_under_the_node_bound() -> None:
    """600 zero-byte one-tensor items (2 nodes each) through a small budget: the node bound
    (MIN_NODES = 1,024) keeps 512 entries, the same ones on both sides."""
    from reference import MIN_NODES
    front_end = FrontEnd(1 << 10, lambda c: ProcessedItem(
        {"x": torch.zeros(0), "nested": {"y": torch.zeros(0)}}, Placeholders(0, 1)))
    engine = Engine(1 << 10)
    for index in range(600):
        serve(front_end, engine, Request((RequestItem(f"k{index}", index),)))
    assert front_end.sender._lru._nodes == engine.receiver._lru._nodes
    assert front_end.sender.entries() == engine.receiver.entries()
    assert engine.stats().entries == MIN_NODES // 4  # entry + x + nested + y = 4 nodes
    engine.receiver.check_invariants()
    front_end.sender.check_invariants()
