"""The clean hookless pair conforms in lockstep as well as under `--threads` and `--async-clients`:
its engine's cache (`cachetools.LRUCache`) is read least recent first, as the adapter
contract asks (`EngineSide.receiver`), and reading it refreshes nothing."""

from __future__ import annotations

import torch
from history_helpers import conform

from model_checks.conform import adapter as api
from model_checks.conform.codec import process_media
from tests.history.hookless_pair import Receiver

DEPLOYED = "D1+D2+D3+D4+D5+D9+D10+D11"


def _engine_with_a_then_b_then_a_looked_up() -> Receiver:
    receiver = Receiver(api.Setup(64, "V2", 1, process_media))
    receiver.cache["a"] = {"t": torch.zeros(8, dtype=torch.uint8)}
    receiver.cache["b"] = {"t": torch.zeros(8, dtype=torch.uint8)}
    receiver.cache["a"]  # a lookup: a is now the most recent
    return receiver


def test_the_clean_hookless_pair_conforms_in_lockstep() -> None:
    code, out, _ = conform("--adapter", "tests.history.hookless_pair:factory",
                           "--variant", "V2", "--environment", DEPLOYED)
    assert code == 0 and "RESULT: CONFORMS" in out, out


def test_the_engine_is_read_least_recent_first_refreshing_nothing() -> None:
    receiver = _engine_with_a_then_b_then_a_looked_up()
    assert [e.identity for e in receiver.receiver()] == ["b", "a"]
    assert [e.identity for e in receiver.receiver()] == ["b", "a"]
    assert receiver.cache.popitem()[0] == "b"  # the reads left the eviction order alone


def test_a_read_through_lookups_gets_both_wrong() -> None:
    """What the reading above avoids (and lockstep caught: the spec's order differs): the
    mapping's own iteration is insertion order, and each lookup refreshes."""
    receiver = _engine_with_a_then_b_then_a_looked_up()
    assert [k for k, _ in receiver.cache.items()] == ["a", "b"]
    assert receiver.cache.popitem()[0] == "a"
