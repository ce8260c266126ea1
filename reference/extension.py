"""The declared seams of reference/: what code outside it may use to build a variant of the
reference (a reference mutant, `model_checks/mutant_run/history_mutants.py` and
`slip_mutants.py`), to swap one of its parts (`model_checks/mutant_run/factory.py`)
or to instrument it (the history checks' preemption points, `model_checks/history/hooks.py`),
without reading a private member.

Two kinds, and nothing else (``tests/architecture/test_arch_private_names.py`` holds every
module outside reference/ to them):

- **Hooks** (``EXTENSION_POINTS``): protected methods that a class's own operations call. A
  subclass may override them, and a variant may call them, keeping the contract stated there
  (and in the method's docstring). Each is called with its cache's lock held, on input the
  class has checked: none is an entry point (none validates its arguments or takes a lock).
- **Functions** (below): the state a variant or a harness reads or swaps and no caller of the
  public API needs: a cache's LRU and lock, an LRU's order, byte total and counters, a front
  end's records. They check nothing: their callers are variants of the reference, not its
  users.

Every other name with a leading underscore is private to reference/: it may change without
notice to anything outside it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Mapping
from contextlib import AbstractContextManager
from typing import Any, Literal, TypeVar

from reference.engine import Engine
from reference.frontend import FrontEnd
from reference.guarded import GuardedCache
from reference.lru import ByteLru
from reference.receiver import ReceiverCache
from reference.sender import SenderCache

__all__ = [
    "EXTENSION_POINTS", "CounterName", "count", "lock_of", "lru_of", "order_of", "sent_identities",
    "set_bytes_in_use", "use_lock", "use_lru", "use_order", "use_receiver", "use_sender",
]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

EXTENSION_POINTS: Mapping[type, Mapping[str, str]] = {
    ByteLru: {
        "_evict_one": "remove one entry to make room, counted as an eviction: the least recent "
                      "(the eviction policy); `put` calls it on a non-empty LRU until the new "
                      "entry fits",
        "_drop_existing": "remove the entry of the key `put` is about to record, if any (a "
                          "replacement: its bytes and nodes freed, counted as one), before "
                          "anything is evicted or refused",
    },
    SenderCache: {
        "_update_one": "resolve one item of an update: a hit becomes a reference (the entry made "
                       "most recent), a miss is recorded (`_record`) and sent as a payload; a "
                       "late miss gets its item from `_late_miss` first",
        "_record": "record a processed item for an identity (its charge and node count, its "
                   "placeholders, a tag from `_new_tag`) and return its wire item, a payload",
        "_new_tag": "the tag of a new record: the tag source's next (tagged variants), else None",
        "_late_miss": "the processed item of a probed hit the shadow lost by the update: "
                      "reprocessed (V3, V4), else the P0-side assertion raised",
        "_reject_unprocessable_late_misses": "V3, V4: raise, before any change, if a late miss "
                                             "cannot be reprocessed (no content, no processor)",
        "_bypasses_shadow": "whether a resend reads nothing from the shadow (V4); asked by the "
                            "front end before it probes and updates",
    },
    ReceiverCache: {
        "_validate": "check every item of a request before anything changes and return each "
                     "one's charge, 0 for a reference (a list of other charges is honoured: the "
                     "payloads are then prepared again)",
        "_lookup_reference": "the payload a reference is served, or None (a miss): the cached "
                             "entry's, if its tag matches (`_tag_matches`) and it is unedited",
        "_tag_matches": "whether a cached entry carries a reference's tag (always, untagged)",
        "_accept_payload": "the payload a payload item is served, cached if it fits: the "
                           "item's (the payload wins), or an unedited cached entry's (the cache "
                           "wins: V0, V1)",
        "_resolution_order": "the order a request's items are resolved in (indices): request "
                             "order, or with references first the references whose identity "
                             "no payload of the request carries, then the rest in request "
                             "order",
    },
}
"""The hooks, by class: name -> the contract an override keeps."""

CounterName = Literal["hits", "misses", "evictions", "replacements", "oversize", "invalidations",
                  "clears"]
"""A counter of ``ByteLru.stats()`` (``lookups`` is ``hits + misses``)."""


def lru_of(cache: GuardedCache[Any]) -> ByteLru[str, Any]:
    """The LRU behind a sender or receiver cache. A variant uses it holding ``lock_of(cache)``
    (a hook is called with it held)."""
    return cache._lru


def lock_of(cache: GuardedCache[Any]) -> AbstractContextManager[Any]:
    """The lock every public method of ``cache`` holds for its whole duration."""
    return cache._lock


def use_lock(owner: GuardedCache[Any] | FrontEnd, lock: AbstractContextManager[Any]) -> None:
    """Guard ``owner`` (a cache, or a front end's records) with ``lock`` from now on: a
    harness's lock, whose waits it schedules, with ``acquire`` and ``release`` as
    ``threading.Lock``'s. Only while no other thread uses ``owner``. A front end whose lock is
    not its sender's drives the sender through its public methods (``FrontEnd``'s trusted
    path needs the lock they share)."""
    owner._lock = lock  # type: ignore[assignment]  # a lock as threading.Lock is


def use_lru(cache: GuardedCache[Any], lru: ByteLru[str, Any]) -> None:
    """Build ``cache`` over ``lru`` (a variant of ``ByteLru``, empty, of the cache's budget)
    instead of its own; before the cache is used."""
    cache._lru = lru


def use_receiver(engine: Engine, receiver: ReceiverCache) -> None:
    """Build ``engine`` over ``receiver`` (a variant's, empty) instead of its own; before the
    engine is used."""
    engine._receiver = receiver


def use_sender(front_end: FrontEnd, sender: SenderCache) -> None:
    """Build ``front_end`` over ``sender`` (a variant's, empty) instead of its own; before the
    front end is used. The front end keeps its lock, which is not ``sender``'s: it drives
    ``sender`` through its public methods, each taking the sender's lock."""
    front_end._sender = sender


def order_of(lru: ByteLru[K, V]) -> OrderedDict[K, V]:
    """The entries of ``lru``, least recent first: the mapping its operations read and change.
    A variant may change it (record a key in the order only, move an entry to the other end);
    the sizes and totals follow only what the LRU's own steps change (``check_invariants``
    says whether they still agree)."""
    return lru._order


def use_order(lru: ByteLru[K, V], order: OrderedDict[K, V]) -> None:
    """Make ``order`` the mapping of ``lru``'s entries: a harness's ``OrderedDict`` subclass
    holding the same entries in the same order, which observes the LRU's steps (the LRU reads
    and changes it through ``OrderedDict``'s methods only: an eviction is a ``popitem``)."""
    lru._order = order


def set_bytes_in_use(lru: ByteLru[Any, Any], total: int) -> None:
    """Set the byte total of ``lru``'s entries: a variant that keeps a wrong total (a removal
    that forgets to free the entry's bytes). Nothing else follows; ``check_invariants``
    reports a total that is not the sum of the sizes."""
    lru._bytes_in_use = total


def count(lru: ByteLru[Any, Any], counter: CounterName) -> None:
    """Add one to ``counter`` of ``lru``'s ``stats()``: what a variant's own step counts (a
    lookup it makes without ``get``, an item it refuses without ``put``)."""
    name = f"_{counter}"
    setattr(lru, name, getattr(lru, name) + 1)


def sent_identities(front_end: FrontEnd, request_id: int) -> frozenset[str] | None:
    """The identities the message of ``front_end``'s outstanding request ``request_id``
    named (what its miss reply may name); None if that request is not outstanding."""
    with front_end._lock:
        return front_end._outstanding.get(request_id)
