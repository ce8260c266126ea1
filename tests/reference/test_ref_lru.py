"""ByteLru: the shared eviction loop (spec/lru.py's semantics), its stats and its input checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import (
    BadInputTypeError,
    BadInputValueError,
    ByteLru,
    Engine,
    InvalidBudgetError,
    InvariantViolationError,
    validate_budget,
)


def lru_of(budget: int, *entries: tuple[str, int]) -> ByteLru[str, str]:
    lru: ByteLru[str, str] = ByteLru(budget)
    for key, size in entries:
        assert lru.put(key, f"v-{key}", size)
    return lru


def state(lru: ByteLru[str, str]) -> tuple[object, ...]:
    return (lru.entries(), lru.items(), lru.stats())


def test_put_evicts_least_recent_until_it_fits() -> None:
    lru = lru_of(10, ("a", 4), ("b", 4))
    assert lru.put("c", "v-c", 4)
    assert lru.entries() == [("b", 4), ("c", 4)]
    assert lru.stats().evictions == 1
    assert lru.bytes_in_use == 8


def test_put_may_evict_several_entries() -> None:
    lru = lru_of(10, ("a", 3), ("b", 3), ("c", 3))
    assert lru.put("d", "v-d", 9)
    assert lru.entries() == [("d", 9)]
    assert lru.stats().evictions == 3


def test_get_hit_makes_most_recent_and_counts() -> None:
    lru = lru_of(10, ("a", 4), ("b", 4))
    assert lru.get("a") == "v-a"
    assert lru.get("zz") is None
    assert [k for k, _ in lru.entries()] == ["b", "a"]
    stats = lru.stats()
    assert (stats.hits, stats.lookups, stats.hit_rate) == (1, 2, 0.5)


def test_hit_rate_is_zero_before_any_lookup() -> None:
    assert lru_of(10).stats().hit_rate == 0.0


def test_contains_is_a_probe_without_reordering_or_counting() -> None:
    lru = lru_of(10, ("a", 4), ("b", 4))
    assert "a" in lru and "zz" not in lru
    assert [k for k, _ in lru.entries()] == ["a", "b"]
    assert lru.stats().lookups == 0


def test_touch_present_key_makes_it_most_recent() -> None:
    lru = lru_of(10, ("a", 4), ("b", 4))
    assert lru.touch("a")
    assert [k for k, _ in lru.entries()] == ["b", "a"]


def test_touch_absent_key_does_nothing() -> None:
    """Regression (vllm#43941): a touched absent key became a ghost in the order and the
    eviction loop then spun forever with the lock held."""
    lru = lru_of(10, ("a", 4))
    before = state(lru)
    assert not lru.touch("ghost")
    assert state(lru) == before
    assert lru.put("b", "v-b", 10)  # evicts "a"; must terminate
    assert lru.entries() == [("b", 10)]
    lru.check_invariants()


def test_replacement_drops_old_entry_first_and_is_not_an_eviction() -> None:
    lru = lru_of(10, ("a", 4), ("b", 4))
    assert lru.put("a", "new-a", 6)
    assert lru.items() == [("b", "v-b"), ("a", "new-a")]
    stats = lru.stats()
    assert (stats.replacements, stats.evictions, stats.bytes_in_use) == (1, 0, 10)


def test_replacing_the_least_recent_key_with_a_larger_value_is_a_replacement() -> None:
    lru = lru_of(10, ("a", 5), ("b", 5))
    assert lru.put("a", "new-a", 9)
    assert lru.entries() == [("a", 9)]
    assert (lru.stats().replacements, lru.stats().evictions) == (1, 1)


def test_oversize_item_is_not_cached() -> None:
    lru = lru_of(10, ("a", 4))
    assert not lru.put("big", "v", 11)
    assert lru.entries() == [("a", 4)]
    assert lru.stats().oversize == 1


def test_oversize_replacement_leaves_no_old_entry() -> None:
    """Regression (vllm#57833): a too-large replacement must not leave the old value."""
    lru = lru_of(10, ("a", 4), ("b", 4))
    assert not lru.put("a", "new-a", 11)
    assert lru.entries() == [("b", 4)]
    assert lru.get("a") is None


def test_item_of_exactly_the_budget_fits_and_zero_sized_items_are_fine() -> None:
    lru = lru_of(10, ("a", 10))
    assert lru.entries() == [("a", 10)]
    assert lru.put("z", "v-z", 0)
    assert lru.entries() == [("a", 10), ("z", 0)]


def test_pop_removes_and_counts_an_invalidation() -> None:
    lru = lru_of(10, ("a", 4))
    assert lru.pop("a") == "v-a"
    assert lru.pop("a") is None
    assert lru.bytes_in_use == 0
    assert lru.stats().invalidations == 1


def test_size_of_reads_without_reordering() -> None:
    lru = lru_of(10, ("a", 4), ("b", 3))
    assert lru.size_of("a") == 4 and lru.size_of("zz") is None
    assert [k for k, _ in lru.entries()] == ["a", "b"]


def test_clear_drops_entries_and_keeps_counters() -> None:
    lru = lru_of(10, ("a", 4))
    lru.get("a")
    lru.clear()
    assert (len(lru), lru.bytes_in_use, lru.entries()) == (0, 0, [])
    stats = lru.stats()
    assert (stats.hits, stats.clears, stats.budget) == (1, 1, 10)


@pytest.mark.parametrize(
    ("budget", "error"),
    [
        (0, InvalidBudgetError),
        (-1, InvalidBudgetError),
        (math.nan, InvalidBudgetError),
        (math.inf, InvalidBudgetError),
        (-math.inf, InvalidBudgetError),
        (True, BadInputTypeError),
        (torch.tensor(True), BadInputTypeError),  # its __index__ is 1: a budget of 1 byte
        (torch.tensor([True]), BadInputTypeError),
        (np.bool_(True), BadInputTypeError),
        (1.5, BadInputTypeError),
        (4.0, BadInputTypeError),
        ("4", BadInputTypeError),
        (None, BadInputTypeError),
    ],
)
def test_bad_budget_is_rejected_with_a_clear_error(budget: object, error: type) -> None:
    with pytest.raises(error, match=r"got budget .*expected a positive int"):
        ByteLru(budget)  # type: ignore[arg-type]
    with pytest.raises(error):
        validate_budget(budget)


def test_an_engine_refuses_a_bool_tensor_budget_and_takes_an_int_tensor() -> None:
    with pytest.raises(BadInputTypeError, match=r"got budget .*expected a positive int"):
        Engine(torch.tensor(True))  # type: ignore[arg-type]
    assert Engine(torch.tensor(64)).stats().budget == 64  # type: ignore[arg-type]


def test_bad_budget_errors_are_also_builtin_errors() -> None:
    with pytest.raises(ValueError):
        validate_budget(math.nan)
    with pytest.raises(TypeError):
        validate_budget(True)


def test_budget_accepts_any_int_like() -> None:
    class Bytes:
        def __index__(self) -> int:
            return 64

    assert validate_budget(Bytes()) == 64


@pytest.mark.parametrize(
    ("size", "value", "error"),
    [
        (-1, "v", BadInputValueError),
        (1.0, "v", BadInputTypeError),
        (True, "v", BadInputTypeError),
        ("3", "v", BadInputTypeError),
        (3, None, BadInputValueError),
    ],
)
def test_bad_put_changes_nothing(size: object, value: object, error: type) -> None:
    lru = lru_of(10, ("a", 4), ("b", 4))
    before = state(lru)
    with pytest.raises(error, match="got"):
        lru.put("a", value, size)  # type: ignore[arg-type]
    assert state(lru) == before


def test_check_invariants_detects_corruption() -> None:
    lru = lru_of(10, ("a", 4))
    lru.check_invariants()
    lru._bytes_in_use = 3
    with pytest.raises(InvariantViolationError, match="sum of sizes"):
        lru.check_invariants()
    lru = lru_of(10, ("a", 4))
    lru._order["ghost"] = "v"
    with pytest.raises(InvariantViolationError, match="different keys"):
        lru.check_invariants()
    lru = lru_of(10, ("a", 4))
    lru._order["a"] = None  # type: ignore[assignment]
    with pytest.raises(InvariantViolationError, match="None value"):
        lru.check_invariants()
    lru = lru_of(10, ("a", 4))
    lru._sizes["a"] = 40
    lru._bytes_in_use = 40
    with pytest.raises(InvariantViolationError, match="budget"):
        lru.check_invariants()


OPS = st.lists(
    st.tuples(
        st.sampled_from(["put", "get", "touch", "pop", "clear"]),
        st.sampled_from("abcdef"),
        st.integers(min_value=0, max_value=14),
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(OPS)
def test_matches_a_list_model_and_keeps_invariants(ops: list[tuple[str, str, int]]) -> None:
    """Differential test against the simplest correct model: a list, oldest first."""
    budget = 12
    lru: ByteLru[str, int] = ByteLru(budget)
    model: list[tuple[str, int, int]] = []  # (key, value, size)
    for step, (op, key, size) in enumerate(ops):
        held = [k for k, _, _ in model]
        if op == "put":
            model = [e for e in model if e[0] != key]
            if size <= budget:
                while sum(s for _, _, s in model) + size > budget:
                    model.pop(0)
                model.append((key, step, size))
            assert lru.put(key, step, size) == (size <= budget)
        elif op in ("get", "touch"):
            if key in held:
                model.append(model.pop(held.index(key)))
            result = lru.get(key) if op == "get" else lru.touch(key)
            assert (result is not None and result is not False) == (key in held)
        elif op == "pop":
            model = [e for e in model if e[0] != key]
            lru.pop(key)
        else:
            model = []
            lru.clear()
        lru.check_invariants()
        assert lru.entries() == [(k, s) for k, _, s in model]
        assert lru.items() == [(k, v) for k, v, _ in model]
