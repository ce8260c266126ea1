"""A third, independent set of single-change mutants of the reference
(`tests/conform/serving_mutants.py`): conformance alone kills at least 95 %, and the
only survivors are its blind spots (`BLIND`: a lock removed, which sequential lockstep cannot
see). Among the kills, three checks that have no other known-bad variant: the processor
calls per step (`front-end-processes-hits`), the identities a rejection names
(`rejection-names-every-uuid`) and the implementation's own end-to-end call
(`serve-forgets-miss-reply`, caught only by a `served` job)."""

from __future__ import annotations

from model_checks.mutant_run.killmatrix import PROFILE, _kill
from model_checks.mutant_run.reference_mutants import reference_mutants
from tests.conform.serving_mutants import BLIND, KILLED_BY_THREADS, SERVING_MUTANTS


def test_serving_mutants_are_new() -> None:
    names = [m.name for m in SERVING_MUTANTS]
    assert len(names) >= 20 and len(set(names)) == len(names)
    assert not set(names) & {m.name for m in reference_mutants()}


def test_serving_mutants_are_killed_by_conformance_alone() -> None:
    kills = {m.name: _kill(m, PROFILE, None) for m in SERVING_MUTANTS}
    survivors = {name for name, kill in kills.items() if kill.caught_by is None}
    assert survivors == set(BLIND) | set(KILLED_BY_THREADS), survivors
    killed = len(kills) - len(survivors)
    assert killed >= 0.95 * len(kills), f"{killed} of {len(kills)}"
    assert kills["front-end-processes-hits"].caught_by == "processor calls"
    assert kills["serve-forgets-miss-reply"].where.split()[1] == "served"
    assert (kills["rejection-names-every-uuid"].caught_by or "").startswith("rejection of")
