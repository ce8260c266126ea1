"""V2's S1 under D7 alone, where the all-instance prover fails ('P1 takes a reference'): the
failing step is a real break, four requests deep (`smt.prove.parametric_witness`), and the
committed trace the lattice takes as evidence is that run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from model_checks.explore.lattice_lru import LRU_LATTICE
from spec import ALL_DRIFT, by_id, run
from tests.smt import parametric_witness as witness

ROOT = Path(__file__).resolve().parents[2]


def test_v2_pairs_a_stale_tensor_under_identity_reuse_alone() -> None:
    violation = by_id("S1").check_trace(witness.trace())
    assert violation is not None and violation.step == len(witness.ACTIONS)
    assert "tensor of version 1 paired with placeholders of version 0" in violation.reason
    assert [d.value for d in witness.CONFIG.environment] == ["D7"]


def test_the_break_stands_with_every_source_added() -> None:
    """It breaks S1 at the same step in every environment containing D7 (the lattice's
    evidence rule): so D7 alone is a minimal breaking set of V2's S1."""
    above = run(replace(witness.CONFIG, environment=ALL_DRIFT), witness.ACTIONS)
    violation = by_id("S1").check_trace(above)
    assert violation is not None and violation.step == len(witness.ACTIONS)


def test_the_committed_trace_is_the_run_and_is_taken_as_evidence() -> None:
    path = ROOT / witness.PATH
    assert path.read_text() == witness.text(), "regenerate: parametric_witness.write()"
    mine = [b for b in LRU_LATTICE.evidence([path]) if b.source == str(path)]
    assert [(b.variant, b.property, b.environment, b.steps) for b in mine] == [
        ("V2", "S1", ("D7",), len(witness.ACTIONS))]
