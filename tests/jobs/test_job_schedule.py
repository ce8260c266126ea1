"""The job's phases side by side (`jobs.schedule`): at most so many at once, a cross-checking
phase after every phase before it, each phase once (a failed one too, and the phases waiting
for it still run); and the job's summary, records and `--verbose` output keep the phases'
order whatever order they end in, its exit the worst phase's."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from model_checks import cli
from model_checks.jobs import phases as jobs
from model_checks.jobs import run, schedule
from model_checks.jobs.phases import MAIN_JOB, Output, checker, explore
from model_checks.kernel.verdict_records import Verdict, VerdictRecord


def _watched(waits: list[frozenset[int]], at_once: int,
             hold: dict[int, int]) -> tuple[list[int], list[tuple[str, int]]]:
    """Run `side_by_side` with runs that each end at once, but run `i` only once run
    `hold[i]` has ended; the order the results came in, and every start and end in the order
    they happened."""
    events: list[tuple[str, int]] = []
    lock = threading.Lock()
    done = [threading.Event() for _ in waits]

    def one(index: int) -> int:
        with lock:
            events.append(("start", index))
        if index in hold:
            assert done[hold[index]].wait(60), "the run held for never ended"
        done[index].set()
        with lock:
            events.append(("end", index))
        return index * 10

    came = []
    for index, value in schedule.side_by_side(len(waits), waits, at_once, one):
        assert value == index * 10
        came.append(index)
    return came, events


def _most_at_once(events: list[tuple[str, int]]) -> int:
    running = most = 0
    for kind, _ in events:
        running += 1 if kind == "start" else -1
        most = max(most, running)
    return most


def test_no_more_phases_run_at_once_than_allowed_and_each_runs_once() -> None:
    waits = [frozenset[int]()] * 5
    came, events = _watched(waits, 2, {0: 2})
    assert sorted(came) == [0, 1, 2, 3, 4]
    assert sorted(events) == sorted([(kind, i) for i in range(5) for kind in ("start", "end")])
    assert _most_at_once(events) == 2
    assert events[:2] == [("start", 0), ("start", 1)]  # the lowest-numbered ready ones first
    came, events = _watched(waits, 1, {})
    assert came == [0, 1, 2, 3, 4] and _most_at_once(events) == 1


def test_a_phase_starts_only_after_every_phase_it_waits_for() -> None:
    """Phase 2 waits for 0 and 1; 3 and 4 wait for none, so they run while 0 lasts (until 4
    has ended) and 2 waits: the results come as phases end, not in their order."""
    waits = [frozenset[int](), frozenset[int](), frozenset({0, 1}), frozenset[int](),
             frozenset[int]()]
    came, events = _watched(waits, 2, {0: 4})
    assert events.index(("start", 2)) > max(events.index(("end", 0)),
                                           events.index(("end", 1)))
    assert events.index(("start", 3)) < events.index(("end", 0))
    assert came.index(3) < came.index(0) < came.index(2)


def test_a_cycle_and_a_wait_for_no_phase_are_refused() -> None:
    with pytest.raises(ValueError, match="wait for each other"):
        list(schedule.side_by_side(2, [frozenset({1}), frozenset({0})], 2, lambda i: i))
    with pytest.raises(ValueError, match="not another phase"):
        list(schedule.side_by_side(1, [frozenset({3})], 2, lambda i: i))
    with pytest.raises(ValueError, match="at least 1"):
        list(schedule.side_by_side(1, [frozenset()], 0, lambda i: i))


def test_the_matrix_explorer_waits_for_the_records_it_cross_checks() -> None:
    """In the main job, the matrix's explorer waits for Hypothesis's and Z3's sweeps (the
    phases before it); every other phase is free to start at once."""
    waits = schedule.waits_for(MAIN_JOB)
    cross = [i for i, phase in enumerate(MAIN_JOB) if phase.cross_check]
    assert [MAIN_JOB[i].argv[:3] for i in cross] == [("explore", "--profile", "ci")]
    assert {MAIN_JOB[i].command for i in waits[cross[0]]} == {"simulate", "prove"}
    assert all(not before for i, before in enumerate(waits) if i not in cross)


def _record(checker_name: str) -> VerdictRecord:
    return VerdictRecord(checker_name, "V3", (), "S2", Verdict.PROVED, 1, "depth", 0.0)


def test_the_summary_records_and_verbose_output_keep_the_phases_order(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    """Three stand-in phases, two at once, the first lasting until the third's end has been
    reported, the second failing: the records, the summary's phase lines and --verbose's
    copies of the phases' outputs come in the phases' order, and the job's exit is the failed
    phase's."""
    codes = {2: 0, 3: 1, 4: 0}
    third_reported = threading.Event()
    progress = run._progress

    def reported(text: str) -> None:
        progress(text)
        if text.startswith("[4/4]"):
            third_reported.set()

    def stand_in(phase_run: run.PhaseRun, parts: Path, build: object) -> run.PhaseResult:
        # Held until the third's end line is out, not just until it returned: two phases
        # ending together are reported in their order, which would hide the order of ending.
        number = phase_run.number
        if number == 2:
            assert third_reported.wait(60), "the third phase's end was never reported"
        phase_run.details.write_text(f"output of phase {number}\n")
        return run.PhaseResult(codes[number], [_record(f"c{number}")], None, 0.0, 0.0)

    monkeypatch.setattr(run, "_progress", reported)
    monkeypatch.setattr(run, "_run_phase", stand_in)
    monkeypatch.setattr(schedule, "cores", lambda: 2)
    monkeypatch.setattr(jobs, "MAIN_JOB", tuple(checker("prove", "--variant", name)
                                                for name in ("V1", "V2", "V3")))
    code = cli.main(["--json", str(tmp_path / "records.json"), "--verbose"])
    out, err = capsys.readouterr()
    assert code == 1
    ended = [line.split("]")[0] for line in err.splitlines() if line.startswith("[")]
    assert ended == ["[1/4", "[3/4", "[4/4", "[2/4"]  # as they ended
    phase_lines = [line.split()[-1] for line in out.splitlines()
                   if line.startswith("  exit ")]
    assert phase_lines == ["scenarios", "V1", "V2", "V3"]
    outputs = [line for line in out.splitlines() if line.startswith("output of phase")]
    assert outputs == ["output of phase 2", "output of phase 3", "output of phase 4"]
    text = (tmp_path / "records.json").read_text()
    assert text.index('"c2"') < text.index('"c3"') < text.index('"c4"')
    assert f"the end of {tmp_path / '3-prove.txt'}:" in out


def test_a_cross_checking_phase_reads_only_the_records_of_the_phases_before_it(
        tmp_path: Path) -> None:
    parts = tmp_path / "parts"
    parts.mkdir()
    for name in ("2-simulate.json", "3-prove.json", "5-explore.json", "12-conform.json"):
        (parts / name).write_text("[]")
    (parts / "3-prove").mkdir()
    phase_run = run.PhaseRun(4, explore("--profile", "ci"), tmp_path)
    assert phase_run.phase.output is Output.RECORDS and phase_run.phase.cross_check
    folder = run._records_before(phase_run, parts)
    assert sorted(p.name for p in folder.iterdir()) == ["2-simulate.json", "3-prove.json"]
