"""`simulate --design NAME`: the one Hypothesis machine over another design, with its rules
from the `Design` interface; the LRU design's own options refused there in one line, and
another design's refused for the LRU's (the planted breaks it finds and replays:
`tests/designs/test_design_mutants.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.simulate import command
from model_checks.simulate.designs import BREAKS, NOT_FOUND
from model_checks.simulate.lru_rules import LRU_RULES, rules_for
from model_checks.simulate.machine import GenericRules
from spec.designs.lru_design import LRU
from spec.designs.shm.design import SHM

GIVEN = {"--out": ["--out", "x"], "--only": ["--only", "V2"], "--cells": ["--cells", "pairs"],
         "--no-mutants": ["--no-mutants"], "--tables": ["--tables"], "--jobs": ["--jobs", "1"],
         "--dask": ["--dask", "tcp://nowhere:1"]}


@pytest.mark.parametrize("flag", [flag for flag, _ in command.MATRIX_ONLY])
def test_every_option_of_the_lru_matrix_only_is_refused_for_another_design(
    flag: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    written = tmp_path / "verdicts.json"
    assert main(["simulate", "--design", "shm", "--json", str(written), *GIVEN[flag]]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --design shm: the LRU design's options only: {flag}\n", err
    assert not written.exists()


def test_another_designs_option_is_refused_for_lru(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--variant", "O1"]) == 2
    assert capsys.readouterr().err == \
        "error: --design lru: another design's options only: --variant\n"


def test_an_unknown_design_or_variant_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--design", "nosuch"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["simulate", "--design", "shm", "--variant", "V9"]) == 2
    assert "design shm's variants are" in capsys.readouterr().err


def test_each_design_has_its_rules() -> None:
    assert rules_for(LRU) is LRU_RULES
    assert rules_for(SHM) == GenericRules(SHM)


def test_simulate_design_judges_every_property(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    written = tmp_path / "verdicts.json"
    assert main(["simulate", "--design", "shm", "--json", str(written)]) == 0
    [summary] = json.loads(written.read_text())
    assert summary["steps"] > 0
    assert set(summary["verdicts"]) == {p.id for p in SHM.properties}
    assert set(summary["verdicts"].values()) <= {BREAKS, NOT_FOUND}
    assert "steps taken" in capsys.readouterr().out

