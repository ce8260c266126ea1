"""The pure LRU: its semantics (spec/lru.py), and each flaw changing exactly one behaviour."""

from __future__ import annotations

import pytest

from spec import lru
from spec.lru import Entry, EvictionHang, Ghost
from spec.variants import LruFlaw


def e(identity: str, size: int = 1, pid: int = 0) -> Entry:
    return Entry(identity, size, pid)


def keys(cache: lru.Lru) -> list[str]:
    return [slot.identity for slot in cache]


def test_probe_never_reorders() -> None:
    cache = (e("a"), e("b"))
    assert lru.probe(cache, "a") and not lru.probe(cache, "c")
    assert keys(cache) == ["a", "b"]


def test_get_hit_makes_most_recent_and_miss_changes_nothing() -> None:
    cache = (e("a"), e("b"))
    found, after = lru.get(cache, "a")
    assert found == e("a") and keys(after) == ["b", "a"]
    missing, same = lru.get(cache, "z")
    assert missing is None and same == cache


def test_touch_present_reorders_absent_does_nothing() -> None:
    cache = (e("a"), e("b"))
    assert keys(lru.touch(cache, "a")) == ["b", "a"]
    assert lru.touch(cache, "z") == cache


def test_put_evicts_least_recent_until_it_fits() -> None:
    cache, cached = lru.put((e("a"), e("b")), e("c"), budget=2)
    assert cached and keys(cache) == ["b", "c"]
    cache, _ = lru.put(cache, e("d", size=2), budget=2)
    assert keys(cache) == ["d"]


def test_replacing_the_least_recent_key_with_a_larger_value_keeps_the_rest() -> None:
    # The old entry is dropped first, so it is never its own eviction victim.
    cache, cached = lru.put((e("a"), e("b")), e("a", size=1, pid=7), budget=2)
    assert cached and cache == (e("b"), e("a", 1, 7))


def test_item_over_budget_is_not_cached_and_drops_the_old_entry() -> None:
    cache, cached = lru.put((e("a"), e("b")), e("a", size=3, pid=9), budget=2)
    assert not cached and keys(cache) == ["b"]


def test_pop_and_bytes_used() -> None:
    cache = (e("a", 2), e("b", 1))
    assert lru.bytes_used(cache) == 3
    assert keys(lru.pop(cache, "a")) == ["b"] and lru.pop(cache, "z") == cache


def test_ghost_touch_records_absent_key_and_eviction_hangs() -> None:
    cache = lru.touch((e("a"),), "z", LruFlaw.GHOST_TOUCH)
    assert cache == (e("a"), Ghost("z")) and lru.entries(cache) == (e("a"),)
    cache = (Ghost("z"), e("a"))
    with pytest.raises(EvictionHang):
        lru.put(cache, e("b"), budget=1, flaw=LruFlaw.GHOST_TOUCH)
    # The correct LRU never creates a ghost, and its loop always terminates.
    assert lru.touch((e("a"),), "z") == (e("a"),)


def test_evict_most_recent_flaw_evicts_the_wrong_end() -> None:
    cache, _ = lru.put((e("a"), e("b")), e("c"), budget=2, flaw=LruFlaw.EVICT_MOST_RECENT)
    assert keys(cache) == ["a", "c"]


def test_ignore_new_size_flaw_overshoots_the_budget() -> None:
    cache, _ = lru.put((e("a"), e("b")), e("c"), budget=2, flaw=LruFlaw.IGNORE_NEW_SIZE)
    assert lru.bytes_used(cache) == 3
