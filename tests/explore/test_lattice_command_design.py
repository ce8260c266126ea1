"""The lattice command reads a design only through its `LatticeCommandDesign`: a design whose
witness check refuses a trace, or whose every-instance answer contradicts a break, makes the
run fail (exit 1, one line naming it) before any JSON is written; the real declaration, on
the same request, passes."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from model_checks.cli import main
from model_checks.explore import lru_explore
from model_checks.explore.lattice import LatticeRequest, Proof
from model_checks.explore.lattice_command import LatticeDefect, WitnessDefect
from model_checks.explore.lattice_instance import Rung
from model_checks.explore.lattice_lru import LRU_LATTICE, LruLattice

ARGV = ["explore", "--lattice", "--variant", "V1", "--sources", "D7+D10", "--max-requests",
        "2", "--identities", "2", "--jobs", "1"]
"""A lattice with a minimal break (S1 under D7+D10): a witness to write."""


@dataclass(frozen=True)
class Planted(LruLattice):
    """The LRU design's lattice with one hook planted to find a defect; its searches run on
    the real declaration (the request names `LRU_LATTICE`, which the workers receive)."""

    refuse_witness: bool = False
    contradict: bool = False

    def request(self, args: argparse.Namespace) -> LatticeRequest[Rung]:
        return replace(LRU_LATTICE.request(args), design=LRU_LATTICE)

    def proofs(self) -> tuple[Proof, ...]:
        return ()

    def every_instance(self, entry: dict[str, Any], proofs: Sequence[Proof],
                       sources: Sequence[str]) -> dict[str, Any] | None:
        if self.contradict and entry["minimal_breaking"]:
            raise LatticeDefect(f"{entry['variant']} {entry['property']}: planted proof "
                                "covers a break")
        return None

    def check_witness(self, request: LatticeRequest[Rung], variant: str, prop: str,
                      drift: Sequence[str], data: dict[str, Any]) -> list[str]:
        if self.refuse_witness:
            raise WitnessDefect(f"{variant} {'+'.join(drift)} {prop}: planted refusal")
        return super().check_witness(request, variant, prop, drift, data)


@pytest.mark.parametrize(("planted", "extra", "said"), [
    (Planted(refuse_witness=True), [], "planted refusal"),
    (Planted(contradict=True), ["--parametric"], "planted proof covers a break"),
])
def test_a_defect_a_design_declares_fails_the_run(
    planted: Planted, extra: list[str], said: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / "lattice.json"
    monkeypatch.setitem(lru_explore._EXPLORERS, "lru",
                        replace(lru_explore.LRU_EXPLORER, lattice=planted))
    code = main([*ARGV, *extra, "--json", str(target), "--out", str(tmp_path / "t")])
    err = capsys.readouterr().err
    assert code == 1 and said in err and err.count("\n") == 1
    assert not target.exists()


def test_the_same_run_passes_on_the_design_as_declared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(lru_explore._EXPLORERS, "lru",
                        replace(lru_explore.LRU_EXPLORER, lattice=Planted()))
    target = tmp_path / "lattice.json"
    code = main([*ARGV, "--parametric", "--json", str(target), "--out", str(tmp_path / "t")])
    assert code == 0, capsys.readouterr()
    assert target.exists()
