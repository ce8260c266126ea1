"""Every checker's instance equals, `==` on `Config` (identity and size order included), the
independent statement of it in `frozen_instance_builders`, over all 2,048
environments (and D5's router half of each that has D5), every variant, and every explorer shape and
lattice rung the profiles use: the verdicts and Hypothesis's derandomized draws were computed
on exactly these configurations."""

from __future__ import annotations

import itertools
from dataclasses import replace

import frozen_instance_builders as frozen
import pytest

from model_checks.explore.cell_tasks import CellTask
from model_checks.explore.instance import CI_LARGE_SHAPES, CI_SHAPES, NIGHTLY_SHAPES
from model_checks.explore.lattice_instance import Rung, lattice_config
from model_checks.explore.lattice_profiles import BASE_RUNG
from model_checks.history.concurrent import instance_config
from model_checks.kernel.instance import WIDER_IN_FLIGHT, config_for
from spec import DRIFT_IDS, VARIANTS, environment
from spec.designs.lru_design import LRU
from spec.drift import ROUTER

DRIFT_ENVIRONMENTS = [e for n in range(len(DRIFT_IDS) + 1)
                      for e in itertools.combinations(DRIFT_IDS, n)]
MATRIX_ENVIRONMENTS = DRIFT_ENVIRONMENTS + [
    tuple(ROUTER if d == "D5" else d for d in e) for e in DRIFT_ENVIRONMENTS if "D5" in e]
SHAPES = tuple(dict.fromkeys((*CI_SHAPES, *NIGHTLY_SHAPES, *CI_LARGE_SHAPES)))
RUNGS = (Rung(), BASE_RUNG, replace(BASE_RUNG, max_requests=3),
         replace(BASE_RUNG, max_requests=4), Rung(max_items=1, reused_bytes=1))
"""The lattice's rungs: the default, the profiles' base and tops, the deep rung, and the
narrow one (one item per request, reused contents of 1 byte)."""
SOME = VARIANTS[:1]
"""The explorer's and lattice's instances do not depend on the variant (the matrix's and
the designs' are checked for every one)."""
JOB_BOUNDS = ((None, None, None), (3, 1, 0), (1, 3, 3))
"""A task's own identities, unfinished requests and retries: none, and two sets of them (on
the environments of at most two sources)."""


def test_the_environments_are_all_of_them() -> None:
    assert len(DRIFT_ENVIRONMENTS) == 2048
    assert len(MATRIX_ENVIRONMENTS) == 2048 + 1024


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_the_matrix_instance_is_the_frozen_one(variant: object) -> None:
    for env in MATRIX_ENVIRONMENTS:
        for unfinished in (2, WIDER_IN_FLIGHT):
            assert config_for(variant, env, unfinished) == frozen.config_for(  # type: ignore[arg-type]
                variant, env, unfinished), env  # type: ignore[arg-type]


def test_every_explorer_shape_is_the_frozen_one() -> None:
    for variant, env, shape in itertools.product(SOME, MATRIX_ENVIRONMENTS, SHAPES):
        for identities, unfinished, retries in JOB_BOUNDS[: 1 if len(env) > 2 else None]:
            task = CellTask(variant, env, out=None, shapes=(shape,),  # type: ignore[arg-type]
                          identities=identities, unfinished=unfinished, retries=retries)
            old = frozen.explore_config(
                variant, env, max_requests=shape.max_requests, max_items=shape.max_items,
                max_identities=shape.max_identities or identities,
                **({} if unfinished is None else {"max_in_flight": unfinished}))
            old = old if retries is None else replace(old, max_retries=retries)
            assert task.config(shape) == old, (env, shape, identities)


def test_every_lattice_rung_is_the_frozen_one() -> None:
    for variant, env, rung in itertools.product(SOME, DRIFT_ENVIRONMENTS, RUNGS):
        old = frozen.lattice_config(
            variant, env, max_requests=rung.max_requests, max_in_flight=rung.max_in_flight,
            max_retries=rung.max_retries, identities=rung.identities,
            max_items=rung.max_items, reused_bytes=rung.reused_bytes)
        assert lattice_config(variant, env, rung) == old, (env, rung)


def test_the_history_and_lru_design_instances_are_the_frozen_ones() -> None:
    for variant, env in itertools.product(VARIANTS, DRIFT_ENVIRONMENTS):
        drift = environment(*env)
        assert instance_config(variant.name, drift) == frozen.history_config(variant, drift)
        assert LRU.instance(variant.name, frozenset(env)) == frozen.lru_design_config(
            variant, drift)


def test_the_explorer_instance_differs_from_the_matrix_where_it_is_cut() -> None:
    """Known-bad: the frozen builders tell instances apart (a harness whose sides were equal
    by construction could not fail)."""
    variant, env = VARIANTS[0], ("D9",)
    assert frozen.explore_config(variant, env) != frozen.config_for(variant, env)
    assert frozen.config_for(variant, env) != frozen.config_for(variant, env, 3)
