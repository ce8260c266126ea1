"""Quality: every spec mutant (`model_checks.mutation.spec_mutants`) is caught by the
simulation checker.

The fast test runs each mutant's cell with a small budget and no shrinking (being caught is
what is asserted; the ci profile records the shrunk lengths). A mutant is caught by the
Hypothesis search or, failing that, by an explicit witness (see
`model_checks.simulate.witnesses`); the slow test asserts the search alone catches the
mutants it is known to catch within the ci budget.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from model_checks.kernel.verdict_records import Verdict
from model_checks.mutation.spec_mutants import Mutant, spec_mutants
from model_checks.simulate.run import PROFILES, run_mutant

FAST = replace(PROFILES["ci"], name="test", break_examples=60, max_shrinks=0, jobs=1)
FOUND_BY_SEARCH = {"engine-asserts", "evicts-most-recent", "ignores-new-size"}


@pytest.mark.parametrize("mutant", spec_mutants(), ids=lambda m: m.name)
def test_every_mutant_is_caught(mutant: Mutant) -> None:
    result = run_mutant(mutant, FAST, None)
    assert not result.mismatches, result.mismatches
    for prop in mutant.breaks:
        record = next(r for r in result.records if r.property == prop)
        assert record.verdict is Verdict.COUNTEREXAMPLE
        assert record.counterexample_length is not None and record.counterexample_length > 0


@pytest.mark.slow
@pytest.mark.parametrize("mutant", spec_mutants(), ids=lambda m: m.name)
def test_ci_search_catches_and_shrinks(mutant: Mutant) -> None:
    result = run_mutant(mutant, PROFILES["ci"], None)
    assert not result.mismatches
    if mutant.name in FOUND_BY_SEARCH:
        assert all("explicit witness" not in r.detail for r in result.records)
