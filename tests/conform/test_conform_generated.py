"""Generated conformance runs: the spec's Hypothesis machines drive spec
and implementation in lockstep; a disagreement is shrunk by Hypothesis; runs replay from
their seed; `keep_going` collects one shrunk disagreement per job."""

from __future__ import annotations

from model_checks.conform.lru_lockstep.run import ConformRun, conform
from model_checks.conform.profiles import ConformProfile
from tests.conform.reference_named import by_name

GENERATED_ONLY = ConformProfile("generated-only", walks=6, length=20, corpus=False)


def test_conform_generated_runs_find_and_shrink_a_mutant_without_the_corpus() -> None:
    mutant = by_name("reports-first-miss")
    outcome = conform(mutant.adapter, GENERATED_ONLY)
    assert outcome.failure is not None, "the generated runs alone catch the mutant"
    assert outcome.where.startswith("V3 generated ")
    # shrunk (Hypothesis, then a deletion pass): both b and c must be cached, lost, and
    # referenced together again, 8 steps at the least; an example has up to 20 plus settling
    assert outcome.failure.step <= 12, outcome.failure.report()


def test_conform_generated_runs_replay_from_their_seed() -> None:
    mutant = by_name("reports-first-miss")
    first = conform(mutant.adapter, GENERATED_ONLY, ConformRun(seed=3))
    again = conform(mutant.adapter, GENERATED_ONLY, ConformRun(seed=3))
    assert first.failure is not None and again.failure is not None
    assert first.failure.report() == again.failure.report()
    assert first.steps == again.steps


def test_conform_keep_going_collects_one_disagreement_per_job() -> None:
    mutant = by_name("reports-first-miss")
    stopping = conform(mutant.adapter, GENERATED_ONLY)
    going = conform(mutant.adapter, GENERATED_ONLY, ConformRun(keep_going=True))
    assert len(stopping.findings) == 1
    assert len(going.findings) > 1
    wheres = [f.where for f in going.findings]
    assert len(set(wheres)) == len(wheres), "one per job"
    assert going.steps > stopping.steps
