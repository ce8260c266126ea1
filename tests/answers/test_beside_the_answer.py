"""Commands speak with the answer store: where a checker finds no break on its own instance
but the project's answer is a break, the command marks its result and prints the answer
with its witness beside it (`explore`), and `prove` selects any cell the store decides,
reporting a bounded result there as weaker than the answer, not as a contradiction."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from model_checks.answers import beside
from model_checks.cli import build_parser, main
from model_checks.smt import command as prove


def test_a_break_in_the_store_is_shown_beside_a_weaker_result() -> None:
    stronger = beside.stronger_break("V2", ("D7",), "S1")
    assert stronger is not None and stronger.answer.breaks
    text = stronger.text()
    assert text.startswith("V2 D7 S1: the project's answer: breaks, a counterexample of ")
    witness = text.split("; witness ")[1]
    assert Path(witness).is_file()


@pytest.mark.parametrize(("variant", "env", "prop"), [
    ("V3", ("D7",), "S1"),  # tags: V3 keeps S1 under identity reuse
    ("V2", (), "S1"),       # no drift: every variant keeps S1
])
def test_no_note_where_the_store_has_no_break(variant: str, env: tuple[str, ...],
                                               prop: str) -> None:
    assert beside.stronger_break(variant, env, prop) is None


def test_explore_marks_its_instance_result_and_names_the_witness(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["explore", "--variant", "V2", "--environment", "D7"]) == 0
    out = capsys.readouterr().out.splitlines()
    header = next(line for line in out if line.startswith("variant"))
    row = next(line for line in out if line.startswith("V2 "))
    marks = dict(zip(header.split()[4:], row.split()[4:], strict=True))
    assert marks["S1"] == "P" + beside.MARK  # no break on its instance: marked
    assert marks["S4"].startswith("x")      # its own break: no mark
    note = next(line for line in out if line.startswith("  V2 D7 S1: the project's answer"))
    assert "breaks" in note and "docs/results/" in note
    assert Path(note.split("; witness ")[1]).is_file()  # it opens from where explore ran


def _args(*argv: str) -> argparse.Namespace:
    return build_parser("prove").parse_args(["prove", *argv])


def test_prove_selects_a_cell_the_matrix_leaves_to_the_store() -> None:
    (cell,) = prove._selected(_args("--variant", "V2", "--environment", "D7",
                                    "--property", "S1"))
    assert (cell.variant.name, cell.environment, cell.property, cell.source) == (
        "V2", ("D7",), "S1", "store")
    assert cell.expected.value == "breaks"
    matrix = prove._selected(_args("--variant", "V2", "--environment", "D7"))
    assert {c.source for c in matrix} == {"matrix", "store"}


def test_prove_reports_a_bounded_hold_there_as_weaker_not_wrong(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["prove", "--variant", "V2", "--environment", "D7", "--property", "S1",
                 "--depth", "2", "--search-depth", "2", "--chc", "none", "--mirror", "none",
                 "--jobs", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "MISMATCH" not in out
    assert "WEAKER THAN THE ANSWER: V2 D7 S1: no counterexample here" in out
    assert "1 weaker than the project's answer" in out


def test_an_empty_selection_says_what_is_selectable() -> None:
    with pytest.raises(prove.ProveUsageError, match=r"has environments .* and properties "):
        prove._selected(_args("--variant", "V2", "--environment", "D5-router",
                              "--cells", "pairs"))
