"""The main job's named instances (`phases.expected`): a search of one property on one
instance, judged against the project's answer (`jobs.expected`). A break the answer names and
the search finds passes, saying its instance, depth, states and CPU seconds; an instance
where the break cannot occur, a planted answer that says the property holds, and an answer
that says nothing each fail the job (exit 1), and the failing verdict is in the summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks import cli
from model_checks.answers import AnswerStore, Facts, Hold, Reach, Witness
from model_checks.answers import Verdict as Answer
from model_checks.explore.instance_command import SearchFigures
from model_checks.jobs import expected as named
from model_checks.jobs import phases as jobs
from model_checks.jobs import run as job_run
from model_checks.jobs.phases import DEEP_BREAKS, MAIN_JOB, NamedCheck, Output
from model_checks.jobs.run import WIDTH
from model_checks.kernel.verdict_records import Verdict, VerdictRecord

BREAKS_HERE = "identities=1,requests=2,unfinished=1,items=1,retries=0,budget=2"
"""An instance where V2 under D7 breaks S4 (a reused identity serves the old content: two
requests naming one identity), 7 steps deep, in well under a second."""
CANNOT_BREAK = "identities=1,requests=1,unfinished=1,items=1,retries=0,budget=2"
"""Known-bad: one request naming one content: S4 cannot break there."""

S4_HOLDS = AnswerStore({("V2", "S4"): Facts(holds=(
    Hold(("D7",), Reach.EVERY_INSTANCE, "planted", "", downward=True),))})
"""A planted answer that V2 keeps S4 under D7 (the project's answer is that it breaks)."""


def _job(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
         instance: str, store: AnswerStore | None = None) -> tuple[int, str]:
    monkeypatch.setattr(jobs, "MAIN_JOB", (jobs.expected("V2", "D7", instance, "S4"),))
    if store is not None:
        monkeypatch.setattr(job_run, "load_answers", lambda: store)
    code = cli.main(["--json", str(tmp_path / "records.json")])
    return code, capsys.readouterr().out


def _named_text(out: str) -> str:
    """The summary's named-instance section, its lines joined and spaces collapsed (the
    summary wraps them at its width)."""
    lines = out.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("== named instances")))
    end = lines.index("== phases")
    return " ".join(" ".join(lines[start + 1:end]).split())


def test_the_break_the_answer_names_is_found_and_passes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    code, out = _job(monkeypatch, capsys, tmp_path, BREAKS_HERE)
    assert code == 0, out
    text = _named_text(out)
    assert f"V2 D7 S4 on {BREAKS_HERE}: breaks, shortest counterexample 7 steps" in text
    assert "as the project's answer says (breaks)" in text
    assert "stopped at the end of depth 7" in text and " states, " in text and "CPU-s" in text
    assert "1 named instances judged; 0 fail" in out
    assert "code run: " in out
    assert (tmp_path / "parts" / "2-traces" / "V2_D7_S4.json").exists()  # apart from explore's
    assert "  exit 0 " in out and "explore --instance (named above): V2 D7 S4" in out
    assert all(len(line) <= WIDTH for line in out.splitlines())


def test_an_instance_where_the_break_cannot_occur_fails_the_job(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    code, out = _job(monkeypatch, capsys, tmp_path, CANNOT_BREAK)
    assert code == 1, out
    text = _named_text(out)
    assert f"V2 D7 S4 on {CANNOT_BREAK}: holds: FAILS, expected to break" in text
    assert "not found on this instance" in text
    assert "1 named instances judged; 1 fail" in out


@pytest.mark.parametrize(("instance", "code", "says"), [
    pytest.param(BREAKS_HERE, 1, ("breaks, shortest counterexample 7 steps: FAILS, a hold "
                                  "breaks", "holds, every instance"), id="breaks-fails"),
    pytest.param(CANNOT_BREAK, 0, ("as the project's answer says (holds)",), id="holds-passes"),
])
def test_a_planted_expected_hold_is_judged_against_the_search(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    instance: str, code: int, says: tuple[str, ...],
) -> None:
    """A planted answer that S4 holds: the job fails where the search breaks it, and passes
    where it holds, saying so on the named instance's lines."""
    exit_code, out = _job(monkeypatch, capsys, tmp_path, instance, S4_HOLDS)
    assert exit_code == code, out
    text = _named_text(out)
    assert all(words in text for words in says), out


def test_no_answer_is_no_expectation(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    code, out = _job(monkeypatch, capsys, tmp_path, BREAKS_HERE, AnswerStore({}))
    assert code == 1, out
    assert "the project has no answer to expect" in " ".join(out.split())


CHECK = NamedCheck("V2", "D7", BREAKS_HERE, "S4")
FIGURES = SearchFigures(BREAKS_HERE, 51, 7, 7, True, 0.01)
BREAK = VerdictRecord("explore", "V2", ("D7",), "S4", Verdict.COUNTEREXAMPLE, None, "depth",
                      0.0, 7, "x.json")
BREAKS_STORE = AnswerStore({("V2", "S4"): Facts(witnesses=(
    Witness(3, ("D7",), "explore", "elsewhere", ""),))})


@pytest.mark.parametrize(("records", "figures", "code", "why"), [
    ([BREAK], FIGURES, 4, ""),
    ([], FIGURES, 1, "wrote no verdict"),
    ([BREAK], SearchFigures(BREAKS_HERE, 0, 0, None, True, 0.0), 4, "wrote no verdict"),
    ([BREAK], None, 4, "wrote no verdict"),
    ([BREAK], FIGURES, 2, "refused its arguments"),
    ([VerdictRecord("explore", "V2", ("D7",), "S4", Verdict.UNKNOWN, 7, "depth", 0.0)],
     SearchFigures(BREAKS_HERE, 9, 7, None, False, 0.0), 3, "not found within the search's"),
])
def test_the_rule_passes_only_a_found_break(records: list[VerdictRecord],
                                            figures: SearchFigures | None, code: int,
                                            why: str) -> None:
    verdict = named.judge(CHECK, code, records, figures, BREAKS_STORE)
    assert verdict.expected is Answer.BREAKS
    assert verdict.passed == (why == "") and why in verdict.why
    assert verdict.code == (0 if verdict.passed else 1)
    assert verdict.line().startswith(f"V2 D7 S4 on {BREAKS_HERE}: ")


def test_an_undecided_search_confirms_no_hold() -> None:
    undecided = VerdictRecord("explore", "V2", ("D7",), "S4", Verdict.UNKNOWN, 7, "depth", 0.0)
    verdict = named.judge(CHECK, 3, [undecided], FIGURES, S4_HOLDS)
    assert not verdict.passed and "confirms nothing" in verdict.why


def test_the_main_job_expects_the_two_four_request_breaks() -> None:
    """The main job holds them, and the project's answer is a break for each."""
    from model_checks.answers import load

    assert all(phase in MAIN_JOB for phase in DEEP_BREAKS)
    checks = [phase.named for phase in DEEP_BREAKS]
    assert [(c.variant, c.environment, c.property_id) for c in checks if c is not None] == [
        ("V2", "D2+D7", "S1"), ("V3", "D2", "L3")]
    assert all(phase.output is Output.EXPECTED for phase in DEEP_BREAKS)
    assert all("requests=4" in c.instance for c in checks if c is not None)
    for c in checks:
        assert c is not None
        assert load().answer(c.variant, c.environment.split("+"), c.property_id).breaks
