"""One command per job, for every design (`--design`, default lru): `explore` searches an
environment's instance, `explore --lattice` every environment of the design's sources,
`explore --lattice --check` re-derives the committed answers and fails where a search
contradicts them (a planted wrong answer shows it can), `conform` reaches each design's
lockstep or says in one line that it has none. A search of one instance (any design, the LRU
design's with `--rung`) exits 4 on a break of a reported property, 3 where one is undecided,
0 where every one holds; `--property` reports one. The former `design` command is refused in one
line naming the new spelling; an option of one design's explorer given to another's (each
one, derived from the two explorers' parsers), a source the design has not and an unknown
one are usage errors."""

from __future__ import annotations

import argparse
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from model_checks import explore_command
from model_checks.cli import build_parser, main
from model_checks.designs import command
from model_checks.explore import lru_explore
from model_checks.explore.design_search import EXIT_BREAK, EXIT_UNDECIDED
from model_checks.kernel import result_files
from model_checks.kernel.exits import EXIT_OK
from spec.designs import designs

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "results" / "designs"
NAMES = [d.name for d in designs()]


def test_explore_prints_each_verdict_and_a_replayable_witness(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explore", "--design", "shm", "--environment", "D2"]) == EXIT_BREAK
    out = capsys.readouterr().out
    assert "U1 breaks in 2 steps" in out and "S1 holds" in out
    assert '1. {"action": "Submit"' in out and '2. {"action": "Reject", "index": 0}' in out


@pytest.mark.parametrize("name", NAMES)
def test_every_design_is_explored(name: str, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explore", "--design", name, "--max-states", "200", "--json",
            str(tmp_path / "r.json"), "--out", str(tmp_path / "out")]
    if name == "lru":  # the LRU design's own explorer, over the matrix's cells
        argv += ["--variant", "V0", "--environment", "none"]
        assert main(argv) == 0
        assert "V0" in capsys.readouterr().out
        return
    code = main(argv)
    assert capsys.readouterr().out.startswith(f"{name} ")
    verdicts = {v for search in json.loads((tmp_path / "r.json").read_text())
                for v in search["verdicts"].values()}
    assert code == (EXIT_BREAK if "breaks" in verdicts else
                    EXIT_UNDECIDED if "unknown" in verdicts else EXIT_OK), verdicts


@pytest.mark.parametrize(("prop", "expected"), [("S1", EXIT_BREAK), ("s2", EXIT_OK)])
def test_property_reports_one_and_decides_the_exit(
    prop: str, expected: int, capsys: pytest.CaptureFixture[str],
) -> None:
    """encoder D7 (complete): S1 breaks, S2 holds; only the one asked for is printed."""
    assert main(["explore", "--design", "encoder", "--environment", "D7",
                 "--property", prop]) == expected
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines if line.startswith("  ") and
            not line.startswith("   ")] == [prop.upper()], lines


def test_rung_searches_the_lru_design_as_any_design(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--rung` with the LRU design: its generic instance by the one explorer, not the
    matrix's cells; S3 breaks under D2 on V0 (the engine crashes at a miss)."""
    assert main(["explore", "--rung", "0", "--variant", "V0", "--environment", "D2",
                 "--property", "S3"]) == EXIT_BREAK
    out = capsys.readouterr().out
    assert out.startswith("lru V0 D2 at rung 0 (2 requests): ") and "S3 breaks in 5 steps" in out


@pytest.mark.parametrize("name", NAMES)
def test_every_design_has_its_lattice(name: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explore", "--lattice", "--design", name, "--max-states", "50", "--json",
            str(tmp_path / "lattice.json"), "--out", str(tmp_path / "out")]
    if name == "lru":
        argv += ["--variant", "V0", "--sources", "D2", "--max-size", "1"]
    assert main(argv) == 0
    assert (tmp_path / "lattice.json").exists()
    capsys.readouterr()


@pytest.mark.parametrize("name", NAMES)
def test_conform_reaches_every_design(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """lru and shm have a lockstep (which goes on to load the adapter); the others say so."""
    assert main(["conform", "--design", name, "--adapter", "no.such:factory"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    reached = "cannot import 'no.such'" in err
    assert reached == (name in ("lru", "shm")), err
    assert reached or f"--design {name}: conform has no lockstep for it" in err


@pytest.mark.parametrize("argv", [
    ["design", "--design", "shm"], ["design", "--checker", "explore", "--design", "encoder"],
    ["design", "--checker", "lattice", "--design", "encoder"],
    ["design", "--check"],
])
def test_the_former_design_command_is_refused_in_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "explore --design NAME" in err, err
    assert "explore --lattice --check" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--design", "shm", "--environment", "D9"],
     "D9 cannot occur in design 'shm': both sides read one object in one store"),
    (["--design", "shm", "--environment", "D12"], "got 'D12', expected ids among"),
    (["--environment", "C1"], "got 'C1', expected ids among D1-D11, D5-router"),
    (["--design", "shm", "--por"], "--design shm: the LRU design's options only: --por"),
    (["--rung", "1"], "--rung: got 1; design lru has rungs 0-0"),
    (["--rung", "0", "--por"],
     "--design lru --rung: the LRU design's matrix explorer's options only: --por"),
    (["--lattice", "--rung", "0"], "--design lru: another design's options only: --rung"),
    (["--design", "shm", "--property", "L1"], "--property 'L1': not a property of design shm"),
    (["--design", "shm", "--lattice", "--property", "U1"],
     "--property reports one property of a search; --lattice answers every property"),
    (["--design", "shm", "--instance", "identities=1"],
     "--design shm: the LRU design's options only: --instance"),
    (["--design", "shm", "--variant", "V2"], "--variant: got 'V2'; design shm's variants"),
    (["--check"], "write explore --lattice --check"),
    (["--lattice", "--check", "--design", "lru"], "design lru has no committed answers"),
    (["--design", "nothing"], "no design 'nothing'"),
])
def test_a_bad_option_for_the_design_is_a_usage_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explore", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def _given(flag: str, action: argparse.Action) -> list[str]:
    """`flag` as a user gives it: alone for a flag, else with a value its parser takes."""
    if action.nargs == 0:
        return [flag]
    return [flag, str(next(iter(action.choices))) if action.choices else "1"]


@pytest.mark.parametrize("flag", [flag for flag, _ in explore_command.LRU_ONLY])
def test_every_option_of_the_lru_explorer_only_is_refused_for_another_design(
    flag: str, capsys: pytest.CaptureFixture[str],
) -> None:
    given = _given(flag, explore_command.LRU_OPTIONS[flag])
    assert main(["explore", "--design", "shm", *given]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --design shm: the LRU design's options only: {flag}\n", err


@pytest.mark.parametrize("flag", [flag for flag, _ in explore_command.OTHER_ONLY])
def test_every_option_of_the_generic_explorer_only_is_refused_for_lru(
    flag: str, capsys: pytest.CaptureFixture[str],
) -> None:
    """By the LRU design's own explorer: its matrix cells or (here) its lattice."""
    given = _given(flag, explore_command.OTHER_OPTIONS[flag])
    assert main(["explore", "--lattice", *given]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --design lru: another design's options only: {flag}\n", err


def test_the_one_design_options_are_what_one_explorer_declares_and_the_other_not() -> None:
    """Derived from the two parsers: `--profile` (a default, not None, on the LRU's) is among
    them; an option both declare means one thing (one destination); the command takes each
    of either's options."""
    lru, other = explore_command.LRU_OPTIONS, explore_command.OTHER_OPTIONS
    assert ("--profile", "profile") in explore_command.LRU_ONLY
    assert {"--variant", "--environment", "--jobs", "--lattice", "--property",
            "--max-states"} <= set(lru) & set(other)
    assert not {f for f, _ in explore_command.LRU_ONLY} & set(other)
    assert not {f for f, _ in explore_command.OTHER_ONLY} & set(lru)
    assert all(lru[f].dest == other[f].dest for f in set(lru) & set(other))
    command_options = build_parser("explore").get_default("_chosen_parser")._option_string_actions
    assert set(lru) | set(other) <= set(command_options)


def test_the_lru_explorer_gets_its_own_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """An option of one explorer only has no default on the shared parser; the explorer
    that runs gets the one its parser declares."""
    seen: list[argparse.Namespace] = []
    declared = replace(lru_explore.LRU_EXPLORER, cells=lambda args: seen.append(args) or 0)
    monkeypatch.setitem(lru_explore._EXPLORERS, "lru", declared)
    assert main(["explore", "--variant", "V0"]) == 0
    assert seen[0].profile == "ci" and seen[0].por is False and seen[0].evidence is None


def test_check_passes_on_the_committed_answers_and_fails_on_a_planted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    shutil.copy(COMMITTED / "shm.json.gz", tmp_path / "shm.json.gz")
    shutil.copytree(COMMITTED / "shm" / "witnesses", tmp_path / "shm" / "witnesses")
    monkeypatch.setattr(command, "RESULTS", tmp_path)
    assert main(["explore", "--lattice", "--check", "--design", "shm"]) == 0
    assert "0 verdict(s) contradict" in capsys.readouterr().out
    planted = result_files.read(tmp_path / "shm.json.gz")
    planted["answers"]["U1"]["D2"] = {"verdict": "holds", "basis": "planted",
                                      "breaking_set": [], "steps": 0}
    result_files.write(tmp_path / "shm.json.gz", planted)
    assert main(["explore", "--lattice", "--check", "--design", "shm"]) == 1
    assert "! shm D2 U1: this search says breaks, the committed answer holds" in \
        capsys.readouterr().out
