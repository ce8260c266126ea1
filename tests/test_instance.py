"""The instance vocabulary (`model_checks.kernel.instance`): the matrix's instance stated once, cut
down (never resized) by the explorer, and the defaults of Z3's bounds and the lattice's rungs
taken from it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model_checks.explore.lattice_instance import Rung
from model_checks.kernel.cell_sets import ALL_EXPECTED
from model_checks.kernel.instance import (
    MATRIX,
    ONE_SIDED,
    config_for,
    instance_contains,
    matrix_drift,
    matrix_instance,
)
from model_checks.smt.encode.symbols import Bounds
from spec import Content, variant_named
from spec.drift import ROUTER, Environment
from spec.instances import Cut, Instance


def bounds_problems(bounds: Bounds, instance: Instance) -> list[str]:
    """What keeps Z3's `bounds` from being `instance`'s constants (its items per request are
    Z3's own cut): other identities or bounds, or a budget or size range missing the
    instance's."""
    problems = [f"{name} {getattr(bounds, name)} != {getattr(instance, name)}"
                for name in ("identities", "max_requests", "max_in_flight", "max_retries")
                if getattr(bounds, name) != getattr(instance, name)]
    low, high = bounds.budget_range
    if not low <= instance.budget <= high:
        problems.append(f"budget {instance.budget} outside {bounds.budget_range}")
    low, high = bounds.size_range
    for size in instance.sizes:
        if not all(low <= b <= high for b in (size.shadow_bytes, size.receiver_bytes)):
            problems.append(f"{size.content} outside {bounds.size_range}")
    return problems


def test_z3_bounds_are_the_matrix_instance() -> None:
    for env in {cell.environment for cell in ALL_EXPECTED}:
        assert not bounds_problems(Bounds(), matrix_instance(env)), env


def test_a_bound_other_than_the_matrix_is_reported() -> None:
    """Known-bad: Z3 bounds with two identities or a budget range missing 2 are caught."""
    assert bounds_problems(replace(Bounds(), identities=("a", "b")), MATRIX)
    assert bounds_problems(replace(Bounds(), budget_range=(3, 4)), MATRIX)


def test_the_lattice_rungs_default_to_the_matrix_bounds() -> None:
    rung = Rung()
    assert (rung.max_in_flight, rung.max_retries, rung.max_items) == (
        MATRIX.max_in_flight, MATRIX.max_retries, MATRIX.max_items)


def test_config_for_is_the_matrix_instance_of_every_cell() -> None:
    for cell in ALL_EXPECTED:
        variant = variant_named(cell.variant)
        config = config_for(variant, cell.environment)
        assert config == matrix_instance(cell.environment).config(
            variant, matrix_drift(cell.environment))
        assert Environment.of_config(config).sources == cell.environment


def test_d9_with_three_identities_keeps_cs_one_sided_size() -> None:
    """Under D9, c is 1 byte on P0 and 3 on P1; a cut to two identities drops c and its
    size, a cut back to three brings c back at that size, never at 1/1 B."""
    d9 = matrix_instance(("D9",))
    assert ONE_SIDED in d9.sizes
    two = d9.cut(Cut(identities=2))
    assert two.identities == ("a", "b") and ONE_SIDED not in two.sizes
    config = d9.cut(Cut(identities=3)).config(variant_named("V2"), matrix_drift(("D9",)))
    c = Content("c")
    assert (config.shadow_bytes(c), config.receiver_bytes(c)) == (1, 3)


def test_a_cut_never_widens() -> None:
    wide = MATRIX.cut(Cut(identities=9, max_requests=9, max_in_flight=9, max_items=9,
                          max_retries=9))
    assert wide == MATRIX


@pytest.mark.parametrize("bound", ["identities", "max_requests", "max_in_flight",
                                   "max_items", "max_retries"])
def test_a_bad_cut_is_an_error_that_changes_nothing(bound: str) -> None:
    instance = matrix_instance(("D9",))
    before = replace(instance)
    with pytest.raises(ValueError, match=f"cut: {bound} must be at least"):
        instance.cut(Cut(**{bound: -1}))
    assert instance == before


def test_the_router_is_d5_with_two_engines() -> None:
    router = matrix_instance((ROUTER,))
    assert (router.front_ends, router.engines) == (1, 2)
    assert matrix_instance(("D5",)).front_ends == 2


def test_instance_contains_follows_sizes() -> None:
    """D11 resizes c: the D9+D11 instance does not contain D9's (c at 1/3 B there)."""
    assert instance_contains(("D1", "D2"), ("D1",))
    assert not instance_contains(("D9", "D11"), ("D9",))
    assert instance_contains(("D9", "D11"), ("D9",), frozenset({"c"}))
