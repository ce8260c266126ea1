"""Every mutant of the shared-memory design is caught in its own small instance, and the
release keeps the property there: the explorer judges each (a break with a witness that
replays, against a hold over the complete state space), and Hypothesis's stateful search
finds each break on a small budget, but one (`RARE`)."""

from __future__ import annotations

import pytest

from model_checks.explore.exploration import explore, replay
from model_checks.simulate.designs import simulate
from spec.designs.shm.config import ShmKnobs
from spec.designs.shm.design import SHM
from tests.designs.design_mutants import MUTANTS, DesignMutant, mutant_named

PROPERTIES = {p.id: p for p in SHM.properties}

RARE = {"no_wrap": "its break needs one of six two-item requests, then the engine's execute "
                   "and the read, then a request naming the third identity: about one run "
                   "in seven hundred, where the explorer needs four steps"}
"""Mutants Hypothesis is not asked to find on a small budget, with the reason."""


def _ids(mutant: DesignMutant) -> str:
    return mutant.name


@pytest.mark.parametrize("mutant", MUTANTS, ids=_ids)
def test_the_explorer_catches_the_mutant_and_the_release_keeps_the_property(
        mutant: DesignMutant) -> None:
    broken = explore(SHM, mutant.config(), max_states=20_000)
    witness = broken.witness(mutant.property_id)
    assert witness is not None, f"{mutant.name}: {mutant.property_id} not broken"
    assert replay(SHM, mutant.config(), witness.actions, PROPERTIES[mutant.property_id])
    release = explore(SHM, mutant.config(ShmKnobs()), max_states=20_000)
    assert release.complete
    assert release.verdict(mutant.property_id) == "holds", mutant.name


@pytest.mark.parametrize("mutant", [m for m in MUTANTS if m.name not in RARE], ids=_ids)
def test_simulate_catches_the_mutant(mutant: DesignMutant) -> None:
    found = simulate(SHM, mutant.config(), examples=40, steps=12)
    counterexample = found.counterexample(mutant.property_id)
    assert counterexample is not None, f"{mutant.name}: {found.counterexamples}"
    assert replay(SHM, mutant.config(), counterexample.actions,
                  PROPERTIES[mutant.property_id])


def test_every_mutant_changes_one_knob_and_names_a_property_of_the_design() -> None:
    release = ShmKnobs()
    for mutant in MUTANTS:
        changed = [f for f in release.__dataclass_fields__
                   if getattr(release, f) != getattr(mutant.knobs, f)]
        assert len(changed) == 1, (mutant.name, changed)
        assert mutant.property_id in PROPERTIES
        assert mutant.why
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
    assert set(RARE) <= {m.name for m in MUTANTS}
    assert mutant_named("frees_pinned").knobs.frees_pinned
    with pytest.raises(KeyError, match="the mutants are"):
        mutant_named("no-such-mutant")
