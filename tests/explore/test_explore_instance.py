"""The explorer's instance of every cell is the matrix's instance cut down (`Instance.cut`):
the matrix's first identities, each at the matrix's sizes, and bounds no larger than the
matrix's. Nothing is resized, whichever identities, requests, unfinished requests and retries
a task asks for."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from model_checks.explore.cell_tasks import CellTask
from model_checks.explore.instance import CI_SHAPES, NIGHTLY_SHAPES, Shape, explore_config
from model_checks.kernel.cell_sets import ALL_EXPECTED
from model_checks.kernel.instance import config_for, matrix_drift, matrix_instance
from spec import Config, Content, variant_named
from spec.instances import Cut

IDENTITY_CHOICES = (None, 1, 2, 3)
"""`--identities` as the explore command passes it to a task (None: the default)."""


def cut_down_problems(matrix: Config, explored: Config) -> list[str]:
    """What keeps `explored` from being `matrix` cut down: its identities are not the
    matrix's first ones, a content's size differs, a bound exceeds the matrix's, or any other
    field differs. Empty when it is the cut-down matrix instance."""
    problems = []
    kept = explored.identities
    if kept != matrix.identities[: len(kept)]:
        problems.append(f"identities {kept} are not a prefix of {matrix.identities}")
    for content in explored.contents():
        if content.identity not in matrix.identities:
            continue
        sides = (explored.shadow_bytes(content), explored.receiver_bytes(content))
        want = (matrix.shadow_bytes(content), matrix.receiver_bytes(content))
        if sides != want:
            problems.append(f"{content}: {sides[0]}/{sides[1]} B, the matrix "
                            f"{want[0]}/{want[1]} B")
    for bound in ("max_requests", "max_in_flight", "max_items"):
        if getattr(explored, bound) > getattr(matrix, bound):
            problems.append(f"{bound} {getattr(explored, bound)} over the matrix's")
    same_rest = replace(explored, identities=matrix.identities, sizes=matrix.sizes,
                        max_requests=matrix.max_requests, max_in_flight=matrix.max_in_flight,
                        max_items=matrix.max_items, max_retries=matrix.max_retries)
    if same_rest != matrix:
        problems.append("another field differs from the matrix's")
    return problems


def cut_of(env: tuple[str, ...], explored: Config) -> Config:
    """The matrix's instance (`instance.matrix_instance`) cut to `explored`'s identities and
    bounds by `Instance.cut`, with its variant and retries."""
    cut = matrix_instance(env).cut(Cut(identities=len(explored.identities),
                                       max_requests=explored.max_requests,
                                       max_in_flight=explored.max_in_flight,
                                       max_items=explored.max_items))
    return replace(cut.config(explored.variant, matrix_drift(env)),
                   max_retries=explored.max_retries)


def test_every_cells_explorer_instance_is_the_cut_down_matrix_instance(tmp_path: Path) -> None:
    """Every cell of the expected matrix (pairs included), every shape of both profiles and
    every `--identities` choice: the task's instance is the matrix's cut down."""
    shapes = tuple(dict.fromkeys((*CI_SHAPES, *NIGHTLY_SHAPES, Shape(2, 2, 3))))
    seen = 0
    for cell in ALL_EXPECTED:
        variant = variant_named(cell.variant)
        matrix = config_for(variant, cell.environment)
        for identities in IDENTITY_CHOICES:
            task = CellTask(variant, cell.environment, tmp_path, identities=identities)
            for shape in shapes:
                explored = task.config(shape)
                problems = cut_down_problems(matrix, explored)
                assert not problems, (cell.variant, cell.environment, identities, shape,
                                      problems)
                assert explored == cut_of(cell.environment, explored), (cell, shape)
                seen += 1
    assert seen == len(ALL_EXPECTED) * len(IDENTITY_CHOICES) * len(shapes)


def test_three_identities_under_d9_keep_cs_one_sided_size(tmp_path: Path) -> None:
    """Under D9 the matrix sizes c at 1 byte on P0 and 3 on P1; three identities bring c
    back at that size (the defect this guards against left it 1/1 B)."""
    task = CellTask(variant_named("V2"), ("D9",), tmp_path, identities=3)
    config = task.config(Shape(2))
    c = Content("c")
    assert config.identities == ("a", "b", "c")
    assert (config.shadow_bytes(c), config.receiver_bytes(c)) == (1, 3)


@pytest.mark.parametrize("resized", ["size", "identity"])
def test_the_check_rejects_a_resized_instance(resized: str) -> None:
    """The check is not vacuous: c at 1/1 B under D9 (the defect), or an identity the
    matrix's prefix does not have, is reported."""
    matrix = config_for(variant_named("V2"), ("D9",))
    if resized == "size":  # the defect: cut to a and b, then c put back without its size
        wrong = replace(explore_config(variant_named("V2"), ("D9",)),
                        identities=matrix.identities)
        assert any("c" in p and "1/1 B" in p for p in cut_down_problems(matrix, wrong))
    else:
        plain = config_for(variant_named("V2"), ())
        wrong = replace(plain, identities=("a", "c"))
        assert any("prefix" in p for p in cut_down_problems(plain, wrong))
