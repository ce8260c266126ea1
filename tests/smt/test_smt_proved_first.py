"""All-depth proofs before BMC (`proved_first`): what they prove leaves BMC, and no break is
hidden. The mutants BMC finds are found at the same depth when the pruning runs first, even
with every property claimed to hold (so every all-depth method is tried on the broken one),
and with the proofs' invariants asserted as lemmas; an unproved lemma would hide the break,
which is what these tests would catch. A bad state Spacer finds reachable comes back as a
decoded, replayed trace."""

from __future__ import annotations

import pytest

from model_checks.conform.lru_lockstep import Driving, replay
from model_checks.conform.reference_adapter import factory
from model_checks.kernel.matrix import Expectation
from model_checks.mutation.spec_mutants import spec_mutants
from model_checks.smt.budget import BMC_RLIMIT, CERTIFICATE_RLIMIT, DEEP_RLIMIT
from model_checks.smt.decided_cells import SmtCell
from model_checks.smt.encode.symbols import Encoding
from model_checks.smt.prove.chc import METHOD
from model_checks.smt.prove.proved_first import (
    FirstProofs,
    ProveOptions,
    property_lemma,
    prove_first,
)
from model_checks.smt.results import ProvedAllDepths, ProvedToBound, Unknown, Violated
from model_checks.smt.runner import SmtRun, _spacer_reachable, run_group
from model_checks.smt.search.bmc import BmcOptions, bmc_many
from spec import V0, V1, V2, by_id, environment, run
from tests.smt.test_smt_chc import CRASHES
from tests.smt.test_smt_mutants import DEEP, SHALLOW, WHOLE_RANGE, encoding_of

SAFETY = ("S1", "S2", "S3", "H1")


def test_properties_proved_for_all_depths_leave_bmc() -> None:
    """V2 under D1: S1 by 1-induction, S2 by the budget's certificate, S3 by Spacer, before
    BMC; only H1 is searched, and its 5-step counterexample is found."""
    cells = [SmtCell(V2, ("D1",), prop, Expectation.HOLDS, "matrix") for prop in SAFETY[:3]]
    cells.append(SmtCell(V2, ("D1",), "H1", Expectation.BREAKS, "matrix"))
    outcomes, line = run_group(cells, SmtRun(6, BMC_RLIMIT, 10))
    results = {o.cell.property: o.result for o in outcomes}
    methods = {p: r.method for p, r in results.items() if isinstance(r, ProvedAllDepths)}
    assert methods == {"S1": "1-induction without lemmas (BMC base case to depth 0)",
                       "S2": "inductive invariant (3-step check)", "S3": METHOD}
    assert isinstance(results["H1"], Violated) and results["H1"].depth == 5
    assert all(o.status == "match" for o in outcomes), line


def _pruned_depths(name: str, length: int, rlimit: int) -> dict[str, int]:
    """The mutant's broken properties with the pruning first (every property claimed to
    hold) and its lemmas in every state: the depth of each counterexample found."""
    mutant = next(m for m in spec_mutants() if m.name == name)
    enc = encoding_of(mutant, WHOLE_RANGE)
    broken = tuple(sorted(mutant.breaks & set(SAFETY)))
    first = prove_first(enc, SAFETY, SAFETY,
                        ProveOptions(CERTIFICATE_RLIMIT, 20_000_000, ("S3",), mirror="none"))
    assert not set(broken) & set(first.proofs), "a broken property was proved"
    found = bmc_many(enc, broken, length, BmcOptions(rlimit, lemmas=first.lemmas))
    depths = {}
    for prop, result in found.items():
        assert isinstance(result, Violated), (name, prop, result)
        replayed = run(result.config, [s.action for s in result.trace.steps])
        assert by_id(prop).check_trace(replayed) is not None
        depths[prop] = result.depth
    return depths


@pytest.mark.parametrize(("name", "length"), sorted(SHALLOW.items()))
def test_pruning_keeps_the_shallow_mutants_at_their_depth(name: str, length: int) -> None:
    assert set(_pruned_depths(name, length, BMC_RLIMIT).values()) == {length}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n, (_, b) in DEEP.items() if b == WHOLE_RANGE))
def test_pruning_keeps_the_deep_mutants_at_their_depth(name: str) -> None:
    """no-late-miss-reprocess (9 steps), untagged (10), keeps-stale-on-resend (10)."""
    length, _ = DEEP[name]
    assert set(_pruned_depths(name, length, DEEP_RLIMIT).values()) == {length}


def test_an_unproved_lemma_would_hide_the_break() -> None:
    """What the mutant tests guard against: asserting a property that is not proved (here the
    broken S3 itself) as a lemma removes the mutant's 7-step crash."""
    mutant = next(m for m in spec_mutants() if m.name == "engine-asserts")
    enc = Encoding(mutant.variant, environment(*mutant.witness.drift))
    hidden = bmc_many(enc, ("S3",), 7, BmcOptions(lemmas=(property_lemma("S3"),)))["S3"]
    assert isinstance(hidden, ProvedToBound) and hidden.bound == 7


def test_a_state_spacer_finds_reachable_comes_back_as_a_replayed_trace() -> None:
    """V1 that crashes on a miss, under D1, its S3 claimed to hold: Spacer derives the crash
    (32 million units, whatever this test worker ran before: Spacer's query has a z3 context
    of its own), and BMC, searching that property to `REACHABLE_DEPTH`, returns the shortest
    crash (5 steps), decoded and replayed on the spec (`bmc._violation`)."""
    cell = SmtCell(CRASHES, ("D1",), "S3", Expectation.HOLDS, "mutant")
    smt_run = SmtRun(2, BMC_RLIMIT, prove=ProveOptions(chc_rlimit=60_000_000))
    (outcome,), _ = run_group([cell], smt_run)
    assert isinstance(outcome.result, Violated) and outcome.result.depth == 5
    assert outcome.status == "mismatch"  # the claim was wrong, and the runner says so
    actions = [s.action for s in outcome.result.trace.steps]
    assert by_id("S3").check_trace(run(outcome.result.config, actions)) is not None


@pytest.mark.slow
def test_spacers_reachable_crash_of_v0_replays_on_the_reference() -> None:
    """V0 under D1 with S3 claimed to hold: Spacer finds the crash reachable (39 million
    units), BMC decodes it (5 steps), and the reference implementation crashes on it too."""
    cell = SmtCell(V0, ("D1",), "S3", Expectation.HOLDS, "mutant")
    smt_run = SmtRun(2, BMC_RLIMIT, prove=ProveOptions(chc_rlimit=60_000_000))
    (outcome,), _ = run_group([cell], smt_run)
    found = outcome.result
    assert isinstance(found, Violated) and found.depth == 5
    broken = replay(found.config, factory(), [s.action for s in found.trace.steps],
                    Driving(settle=False)).broken
    assert "S3" in broken


def test_a_reachable_state_bmc_cannot_reach_stays_undecided() -> None:
    """When BMC's queries run out before the depth of the violation Spacer found, the cell is
    undecided and says why, never a bounded proof."""
    first = FirstProofs(reachable={"S3": 24_000_000})
    ran_out = Unknown("S3", 3, "rlimit 200000000 exhausted (used 200000000)", 1.0)
    said = _spacer_reachable(first, {"S3": ran_out})["S3"]
    assert isinstance(said, Unknown) and said.bound == 3
    assert said.reason == ("Spacer finds a state breaking S3 reachable (used 24000000 units); "
                           "BMC found none within 3 steps, then rlimit 200000000 exhausted "
                           "(used 200000000)")
    assert _spacer_reachable(first, {"S3": Violated("S3", 5, None, (), 1.0)}) == {}  # type: ignore[arg-type]


def test_v1_holding_s3_is_proved_before_bmc_and_not_searched() -> None:
    (outcome,), line = run_group([SmtCell(V1, ("D1",), "S3", Expectation.HOLDS, "matrix")],
                                 SmtRun(6, BMC_RLIMIT))
    assert isinstance(outcome.result, ProvedAllDepths) and outcome.result.method == METHOD
    assert "peak rlimit: BMC 0" in line  # no BMC query was asked
