"""The explorer's records in the results snapshot and the pages: kept by a refresh (its
traces too), shown in their own column, and ranked as the main job's summary ranks them, so no
bounded proof is a cell's headline where the explorer has a complete verdict and no
counterexample hides behind the explorer's proof for its smaller instance. Each check is also
shown failing on a made-up snapshot where the rule is broken."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from model_checks.answers import load as load_answers
from model_checks.answers.summary import code, order
from model_checks.docs.results import Results, describe, variant_page
from model_checks.docs.snapshot import (
    CHECKERS,
    KEPT,
    RECORDS,
    TRACES,
    Key,
    Snapshot,
    SnapshotError,
    from_run,
    key,
    load,
    provenance,
    read_run,
    sources,
)
from model_checks.kernel.verdict_records import Verdict, VerdictRecord, write_records
from spec import property_ids

DOCS = Path(__file__).resolve().parent.parent / "docs"
SCOPE = ("identities a,b; budget 2; 2 requests, 2 unfinished, 1 item(s) each, 2 retries; "
         "1 front end(s); 2 content(s) per identity; 1381 states, diameter 9")
CELL = ("V1", ("D7",), "S1")


def _record(checker: str, verdict: Verdict, bound: int | None = None, length: int | None = None,
            detail: str = "", instance: str = "") -> VerdictRecord:
    variant, env, prop = CELL
    return VerdictRecord(checker, variant, env, prop, verdict, bound,
                         "steps" if checker != "explore" else "depth", 0.1, length,
                         detail=detail, instance=instance)


def _explored(verdict: Verdict) -> VerdictRecord:
    word = {Verdict.PROVED: "proved for this instance, all depths",
            Verdict.VACUOUS: "vacuous: one content per identity"}[verdict]
    return _record("explore", verdict, detail=f"{word}; instance: {SCOPE}")


Z3_BOUNDED = _record("z3-bmc", Verdict.PROVED, 6, instance="3 identities, 4 requests")
Z3_ALL = _record("z3-induction", Verdict.PROVED, None, instance="3 identities, 4 requests")
SAMPLED = _record("hypothesis", Verdict.HOLDS, 300, detail="30 examples")
BROKEN = _record("hypothesis", Verdict.COUNTEREXAMPLE, 14, 14)


def _strongest_in(results: Results, cell: Key) -> VerdictRecord | None:
    """The most decisive Hypothesis, Z3 or explorer record of a cell (the main job's summary
    rule, `summary.order`), as a cell's headline."""
    found = results.checked(cell)
    return min(found, key=lambda r: (order(r), r.checker)) if found else None


def _strongest(*records: VerdictRecord) -> VerdictRecord | None:
    return _strongest_in(Results.of(Snapshot("", records, {})), CELL)


def test_a_complete_explorer_verdict_heads_a_cell_over_bounded_and_sampled_ones() -> None:
    for verdict in (Verdict.PROVED, Verdict.VACUOUS):
        explored = _explored(verdict)
        assert _strongest(Z3_BOUNDED, SAMPLED, explored) is explored
    # the rule fails where the explorer's records are left out, as they were before
    assert _strongest(Z3_BOUNDED, SAMPLED) is Z3_BOUNDED


def test_a_counterexample_or_an_all_depth_proof_outranks_the_explorers_smaller_instance() -> None:
    explored = _explored(Verdict.PROVED)
    assert _strongest(explored, BROKEN) is BROKEN
    assert _strongest(explored, Z3_ALL) is Z3_ALL


def test_every_proof_is_printed_with_its_instance_and_the_explorers_with_its_graph() -> None:
    proved = describe(_explored(Verdict.PROVED), None)
    assert proved == f"proved for its instance only (every reachable state judged): {SCOPE}"
    assert "all depths" not in proved
    vacuous = describe(_explored(Verdict.VACUOUS), None)
    assert vacuous.startswith("vacuous: one content per identity; ") and SCOPE in vacuous
    assert "3 identities, 4 requests" in describe(Z3_BOUNDED, None)
    nameless = replace(_explored(Verdict.PROVED), detail="proved for this instance")
    with pytest.raises(SnapshotError, match="names no instance"):
        describe(nameless, None)


def _headline(page: str, variant: str, prop: str, section: str) -> list[str]:
    """The cells of one row of a per-environment table of a per-variant verdicts page."""
    part = page.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    row = next(line for line in part.splitlines() if line.startswith(f"| {variant} | {prop} |"))
    return [c.strip() for c in row.strip("|").split("|")]


def test_verdicts_page_has_an_explorer_column_and_the_summarys_headline() -> None:
    page = variant_page(Results.of(load(DOCS)), load_answers(), "V1")
    header = ("| variant | property | expected | scenarios | Hypothesis | Z3 | explorer | "
              "answer |")
    assert header in page
    # V1's L1 under D1: Hypothesis finds nothing, Z3 does not judge liveness, and the
    # explorer proves it for its instance; the answer is at least that strong (here an
    # all-instance proof covers the cell)
    cells = _headline(page, "V1", "L1", "D1 (reordered delivery)")
    explorer, answer = cells[6], cells[7]
    assert explorer.startswith("proved for its instance only (every reachable state judged): ")
    assert "states, diameter" in explorer
    assert re.fullmatch(r"holds, (all depths \(instance \d+\)|every instance)", answer)


def test_no_committed_cell_is_headed_by_a_bounded_verdict_the_explorer_completes() -> None:
    results = Results.of(load(DOCS))
    complete = {key(r) for r in results.snapshot.records if r.checker == "explore"
                and r.verdict in (Verdict.PROVED, Verdict.VACUOUS)}
    assert complete, "the snapshot keeps no complete explorer verdict"
    for cell in complete:
        best = _strongest_in(results, cell)
        assert best is not None and code(best)[0] <= 2, (cell, best)
        found = results.by_cell[cell]
        if any(r.verdict is Verdict.COUNTEREXAMPLE for r in found):
            assert best.verdict is Verdict.COUNTEREXAMPLE, cell


def test_the_snapshot_keeps_the_explorers_records_and_their_traces() -> None:
    snapshot = load(DOCS)
    assert "explore" in CHECKERS
    explored = [r for r in snapshot.records if r.checker == "explore"]
    assert {r.property for r in explored} == set(property_ids())
    assert any(r.counterexample_path for r in explored), "no explorer trace kept"


def test_a_refresh_from_one_checkers_run_replaces_its_records_and_keeps_the_others(
    tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    committed = read_run(DOCS / RECORDS)
    stored = {r.property + "".join(r.environment) + r.variant: r.counterexample_path
              for r in committed if r.counterexample_path}
    run = [replace(r, counterexample_path=str(DOCS / TRACES / Path(r.counterexample_path).name))
           if r.counterexample_path else r for r in committed if r.checker == "explore"]
    # the run turns one of the explorer's proofs into `unknown`: the refresh takes the run's
    changed = next(i for i, r in enumerate(run) if r.verdict is Verdict.PROVED)
    run[changed] = replace(run[changed], verdict=Verdict.UNKNOWN)
    write_records(tmp_path / "explore.json", run)
    fresh = from_run(tmp_path / "explore.json", docs, "refresh", committed, "earlier")
    assert len(fresh.records) == len(committed)
    assert sum(r.verdict is Verdict.UNKNOWN and r.checker == "explore" for r in fresh.records) \
        == 1 + sum(r.verdict is Verdict.UNKNOWN and r.checker == "explore" for r in committed)
    assert [r for r in fresh.records if r.checker != "explore"] == \
        [r for r in committed if r.checker != "explore"]
    assert {r.property + "".join(r.environment) + r.variant: r.counterexample_path
            for r in fresh.records if r.counterexample_path} == stored
    assert fresh.command.startswith("refresh" + KEPT + " (taken with 'earlier')")
    assert "explore" not in fresh.command.split(KEPT)[1]  # the run's own checker is not kept


def test_provenance_names_what_was_kept_and_never_nests() -> None:
    kept = [SAMPLED, SAMPLED, Z3_BOUNDED]
    once = provenance("second", kept, "first")
    assert once == ("second; kept from the previous snapshot (taken with 'first'), the records "
                    "of the checkers and cells this run did not judge: hypothesis 2, z3-bmc 1")
    twice = provenance("third", kept, once)
    assert "(taken with 'second'; 'first')" in twice and twice.count("taken with") == 1
    assert sources(provenance("second", kept, once)) == ["second", "first"]
    assert provenance("alone", [], once) == "alone"
