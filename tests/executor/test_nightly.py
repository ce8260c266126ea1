"""The nightly job: the main job's machinery over the deep budgets (`jobs.phases.NIGHTLY`).
Running it takes hours on 2 cores, so the tests check that every part is a valid command
line (with the cluster flag where the part is a sweep), and run the wiring on a one-cell
stand-in."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks import cli
from model_checks.jobs import phases, run
from model_checks.jobs.phases import LATTICE_EVIDENCE, NIGHTLY_PARTS, Output, Phase, checker
from model_checks.kernel.verdict_records import read_records


@pytest.mark.parametrize("phase", [*phases.MAIN_JOB, *phases.NIGHTLY],
                         ids=lambda phase: " ".join(phase.argv))
def test_every_part_is_a_valid_command_line(phase: Phase) -> None:
    argv = phase.argv
    full = run.with_dask(phase, "tcp://127.0.0.1:8786").argv
    sweep = argv[0] in run.SWEEPS and phase.output is not Output.EXPECTED  # one search
    assert ("--dask" in full) == sweep
    args = cli.build_parser(argv[0]).parse_args([*full, "--json", "x.json"])
    assert args.command == argv[0]


def test_nightly_writes_records_and_the_summary(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    one_cell = ("prove", "--variant", "V3", "--environment", "none", "--property", "S2",
                "--depth", "1", "--jobs", "1")
    monkeypatch.setattr(phases, "NIGHTLY", (checker(*one_cell),))
    out = tmp_path / "nightly" / "records.json"
    assert cli.main(["nightly", "--json", str(out)]) == 0
    records = read_records(out)
    assert {r.checker for r in records} >= {"scenarios", "z3-induction"}
    captured = capsys.readouterr()
    assert captured.out.startswith("== summary")
    assert "nightly: 2 phases" in captured.err
    assert (tmp_path / "nightly" / "2-prove.txt").exists()


def test_the_parts_are_the_whole_nightly_job_in_order() -> None:
    joined = tuple(phase for part in phases.NIGHTLY_PARTS.values() for phase in part)
    assert joined == phases.NIGHTLY
    assert len(set(phases.NIGHTLY)) == len(phases.NIGHTLY)  # no phase runs twice


def test_the_simulate_parts_split_the_nightly_cells_exactly() -> None:
    """The variant parts' `--only` filters select each matrix cell exactly once (the filter is
    the one `simulate` applies), and only the mutants' part keeps the mutants."""
    from model_checks.kernel.cell_sets import cells_named
    from model_checks.kernel.cells import cell_label, cell_matches

    filters = [phase.argv[phase.argv.index("--only") + 1]
               for part, parts in phases.NIGHTLY_PARTS.items()
               if part.startswith("simulate-") for phase in parts]
    cells = cells_named("matrix")
    for cell in cells:
        chosen = [text for text in filters if cell_matches(text, cell.variant, cell.environment)]
        assert len(chosen) == 1, cell_label(cell.variant, cell.environment)
    assert [text for text in filters if text.startswith("mutant")] == ["mutant"]


def test_the_workflow_runs_one_job_per_part() -> None:
    workflow = (Path(__file__).parents[2] / ".github" / "workflows" / "model-checks.yml")
    text = workflow.read_text()
    listed = text.split("part: [", 1)[1].split("]", 1)[0]
    assert [name.strip() for name in listed.split(",")] == list(phases.NIGHTLY_PARTS)
    assert "nightly --part ${{ matrix.part }}" in text


def test_a_part_runs_only_its_phases(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    def one_cell(prop: str) -> tuple[str, ...]:
        return ("prove", "--variant", "V3", "--environment", "none", "--property", prop,
                "--depth", "1", "--jobs", "1")

    parts = {"simulate-V0": (checker(*one_cell("S1")),),
             "prove-explore": (checker(*one_cell("S2")),)}
    monkeypatch.setattr(phases, "NIGHTLY_PARTS", parts)
    out = tmp_path / "nightly" / "records.json"
    assert cli.main(["nightly", "--part", "prove-explore", "--json", str(out)]) == 0
    records = read_records(out)
    assert {r.property for r in records if r.checker != "scenarios"} == {"S2"}
    assert "nightly (prove-explore): 2 phases" in capsys.readouterr().err


def test_an_unknown_part_is_a_usage_error(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "nightly" / "records.json"
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["nightly", "--part", "simulate-V9", "--json", str(out)])
    assert exit_info.value.code == 2
    assert "simulate-V9" in capsys.readouterr().err
    assert not out.parent.exists()


def test_the_nightly_lattice_merges_the_evidence_the_committed_page_was_rendered_with() -> None:
    """A nightly render that merged less evidence than the committed page would drop the
    breaks only that evidence holds (the all-instance proofs' hand-built runs)."""
    page = (Path(__file__).resolve().parents[1].parent / "docs" / "drift-combinations.md")
    produced = next(line for line in page.read_text().splitlines() if "Produced by" in line)
    argv = NIGHTLY_PARTS["lattice"][0].argv
    given = {argv[i + 1] for i, word in enumerate(argv) if word == "--evidence"}
    assert given == set(LATTICE_EVIDENCE)
    for evidence in LATTICE_EVIDENCE:
        assert f"--evidence {evidence}" in produced
