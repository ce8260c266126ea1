"""Every checker answers for every registered property, and a new property needs no edit.

Each checker keeps one table keyed by property (`model_checks.kernel.judged`): judged, or not judged
with the reason. The first tests check the tables against the registry (and that a table
missing a property is caught); the last registers an extra state property, as a fixture,
and shows the checkers take it up with no other edit: simulate and explore judge it (each
finds its counterexample), the main job's summary shows its column, and Z3 and conformance
list it as not judged (conformance records it as unknown, never as holding).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from model_checks.kernel.judged import Judged, NotJudged, Table
from model_checks.kernel.verdict_records import Verdict, VerdictRecord
from spec import V3, Config, Kind, State, property_ids, registry
from spec.properties import declare as declared
from tests.architecture.checker_tables import checker_tables


def gaps(table: Table) -> list[str]:
    """What is wrong with a checker's table: registered properties it neither judges nor
    lists as not judged, and ids it names that the registry does not have (empty: none)."""
    registered = property_ids()
    problems = [f"{p}: neither judged nor listed as not judged" for p in registered
                if p not in table]
    problems += [f"{p}: not a property of spec.registry()" for p in table
                 if p not in registered]
    return problems


EXTRA = "S9"


def answers_every_property(name: str, table: Table) -> None:
    """The architecture rule: a checker's table answers for exactly the registry."""
    problems = gaps(table)
    assert not problems, f"{name}: " + "; ".join(problems)
    for prop, answer in table.items():
        if isinstance(answer, NotJudged):
            assert answer.reason.strip(), f"{name} lists {prop} as not judged without a reason"


def test_arch_every_checker_answers_for_every_property() -> None:
    tables = checker_tables()
    assert set(tables) == {"hypothesis", "explore", "z3", "conformance"}
    for name, table in tables.items():
        answers_every_property(name, table())


def test_arch_a_table_missing_a_property_fails_the_rule() -> None:
    """Known-bad input: a checker table that forgets one property, and one that names an
    id the registry does not have."""
    table = dict(checker_tables()["z3"]())
    forgotten = property_ids()[-1]
    del table[forgotten]
    with pytest.raises(AssertionError, match=f"{forgotten}: neither judged nor listed"):
        answers_every_property("mutant", table)
    table[forgotten] = Judged("x")
    table["S99"] = Judged("x")
    with pytest.raises(AssertionError, match=r"S99: not a property of spec\.registry"):
        answers_every_property("mutant", table)
    table.pop("S99")
    table[forgotten] = NotJudged(" ")
    with pytest.raises(AssertionError, match="without a reason"):
        answers_every_property("mutant", table)


def test_arch_checker_tables_match_the_checkers_code() -> None:
    """The tables say what the code does: Z3's encoded ids are `BAD`'s keys and the
    properties it runs are its judged ones; conformance's agreed-trace properties are those
    lockstep judges on the agreed trace."""
    from model_checks.conform import lru_lockstep as lockstep
    from model_checks.conform.lru_lockstep.judged import on_agreed_trace
    from model_checks.smt.decided_cells import SAFETY
    from model_checks.smt.encode.properties import BAD
    from model_checks.smt.judged import ENCODED

    assert set(BAD) == ENCODED
    z3 = checker_tables()["z3"]()
    assert tuple(p for p in property_ids() if isinstance(z3[p], Judged)) == SAFETY
    assert on_agreed_trace() == tuple(lockstep.SPEC_JUDGED)


def _two_entries(config: Config, state: State) -> list[str]:
    """P1's receiver never holds two entries at once (a fixture: it breaks as soon as two
    items are cached)."""
    held = len(state.receiver)
    return [f"P1 holds {held} entries"] if held >= 2 else []


@pytest.fixture
def extra_property() -> Iterator[str]:
    """Declare S9 with the spec's own decorator, as a new property would be; forget it
    afterwards."""
    registry()  # the real declarations first
    declared.state_property(EXTRA, "at most one entry (fixture)", Kind.SAFETY,
                             statement=str(_two_entries.__doc__))(_two_entries)
    try:
        yield EXTRA
    finally:
        declared.withdraw(EXTRA)


def test_arch_a_new_property_is_taken_up_with_no_other_edit(extra_property: str) -> None:
    from model_checks.answers.summary import matrix_summary, summary
    from model_checks.conform.lru_lockstep.run import Outcome
    from model_checks.explore.graph import build
    from model_checks.explore.instance import explore_config
    from model_checks.explore.lru_judging.judge import Status, judge
    from model_checks.simulate.profiles import PROFILES
    from model_checks.simulate.run import RuleStats, search
    from spec import by_id

    assert extra_property in property_ids()
    tables = {name: table() for name, table in checker_tables().items()}
    for name, table in tables.items():
        answers_every_property(name, table)
    assert isinstance(tables["hypothesis"][extra_property], Judged)
    assert isinstance(tables["explore"][extra_property], Judged)
    assert isinstance(tables["z3"][extra_property], NotJudged)
    assert isinstance(tables["conformance"][extra_property], NotJudged)

    # simulate judges it: the Hypothesis machine finds its counterexample.
    config = Config(variant=V3)
    found = search("extra", config, (extra_property,), PROFILES["ci"], 100, RuleStats())
    assert found.finding is not None and found.finding.property_id == extra_property

    # explore judges it: a shortest counterexample in its instance, replayed on the spec.
    small = explore_config(V3, ())
    judgement = judge(build(small), by_id(extra_property))
    assert judgement.status is Status.COUNTEREXAMPLE, judgement

    # the main job's summary shows its column, with the checkers' results in it.
    shortest = min(len(judgement.actions), found.finding.step)
    records = [
        VerdictRecord("explore", "V3", (), extra_property, Verdict.COUNTEREXAMPLE, None,
                      "states", 0.0, counterexample_length=len(judgement.actions)),
        VerdictRecord("hypothesis", "V3", (), extra_property, Verdict.COUNTEREXAMPLE, 100,
                      "examples", 0.0, counterexample_length=found.finding.step),
    ]
    header, _, *rows = summary(records).splitlines()
    column = header.split().index(extra_property)
    row = next(r for r in rows if r.split()[:2] == ["none", "V3"])
    assert row.split()[column] in (f"x{shortest}E", f"x{shortest}H")
    assert extra_property in matrix_summary(records).splitlines()[0].split()

    # conformance lists it as not judged, and its records say so instead of "holds".
    outcome = Outcome("reference", steps=10, checked=["V3"])
    by_property = {r.property: r for r in outcome.safety_records(0.0)}
    assert by_property[extra_property].verdict is Verdict.UNKNOWN
    assert "not judged" in by_property[extra_property].detail
    assert by_property["S1"].verdict is Verdict.HOLDS
