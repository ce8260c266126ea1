"""The expected matrix: complete, well-formed, and consistent with the protocol's invariants
of reasoning (a checker that always says "safe" or always says "broken" fails here)."""

from __future__ import annotations

from model_checks.matrix import (
    ENVIRONMENTS,
    EXPECTED,
    PROPERTIES,
    Expectation,
    config_for,
    expected_cell,
)
from spec import VARIANTS, registry, variant_named


def test_every_variant_and_environment_has_one_cell_judging_every_property() -> None:
    keys = [(c.variant, c.environment) for c in EXPECTED]
    assert len(keys) == len(set(keys)) == len(VARIANTS) * len(ENVIRONMENTS)
    assert set(PROPERTIES) == {p.id for p in registry()}
    for cell in EXPECTED:
        assert set(cell.expectations) == set(PROPERTIES)
        assert cell.why.strip()
        config_for(variant_named(cell.variant), cell.environment)  # a valid configuration


def test_sanity_pairs() -> None:
    # Every cell expects something to hold; every drifting environment but D7/D8/D11 alone
    # breaks H1 in every variant; no drift breaks nothing.
    for cell in EXPECTED:
        assert Expectation.HOLDS in cell.expectations.values()
        assert cell.expectations["S2"] is Expectation.HOLDS
        assert cell.expectations["L2"] is Expectation.HOLDS
    for variant in ("V0", "V1", "V2", "V3"):
        assert set(expected_cell(variant, ()).expectations.values()) == {Expectation.HOLDS}
        all_drift = next(e for e in ENVIRONMENTS if len(e) == 11)
        assert expected_cell(variant, all_drift).expectations["H1"] is Expectation.BREAKS


def test_v3_keeps_safety_under_every_drift() -> None:
    for cell in EXPECTED:
        if cell.variant == "V3":
            for prop in ("S1", "S2", "S3"):
                assert cell.expectations[prop] is Expectation.HOLDS, cell.environment


def test_s4_breaks_exactly_under_identity_reuse() -> None:
    for cell in EXPECTED:
        reuse = "D7" in cell.environment
        assert (cell.expectations["S4"] is Expectation.BREAKS) is reuse
