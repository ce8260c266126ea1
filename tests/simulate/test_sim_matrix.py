"""The expected matrix: complete, well-formed, and consistent with the protocol's invariants
of reasoning (a checker that always says "safe" or always says "broken" fails here)."""

from __future__ import annotations

from model_checks.kernel.instance import WIDER_IN_FLIGHT, config_for
from model_checks.kernel.matrix import (
    ENVIRONMENTS,
    EXPECTED,
    PROPERTIES,
    ROUTER_ENVIRONMENTS,
    WIDER_PROPERTIES,
    Expectation,
)
from spec import DRIFT_IDS, V3, VARIANT_NAMES, VARIANTS, registry, variant_named
from tests.expected_cells import expected_cell


def test_every_variant_and_environment_has_one_cell_judging_every_property() -> None:
    keys = [(c.variant, c.environment) for c in EXPECTED]
    assert len(keys) == len(set(keys)) == len(VARIANTS) * (
        len(ENVIRONMENTS) + len(ROUTER_ENVIRONMENTS)
    )
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
        if cell.variant == "V0":  # V0 reports no miss: L1-L3 are vacuous
            assert {cell.expectations[p] for p in ("L1", "L2", "L3")} == {Expectation.HOLDS}
    for variant in VARIANT_NAMES:
        assert set(expected_cell(variant, ()).expectations.values()) == {Expectation.HOLDS}
        all_drift = next(e for e in ENVIRONMENTS if len(e) == len(DRIFT_IDS))
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


def test_a_superset_environment_never_expects_to_hold_what_a_subset_breaks() -> None:
    # Every trace of an environment is a trace of any environment containing it (the extra
    # drift sources only add actions and configurations), so a property broken or not judged
    # under the smaller one cannot be expected to hold under the larger (D5 against D5+D7).
    for small in EXPECTED:
        for large in EXPECTED:
            if large.variant != small.variant or not set(small.environment) < set(
                large.environment
            ):
                continue
            for prop, expected in small.expectations.items():
                if expected is not Expectation.HOLDS:
                    assert large.expectations[prop] is not Expectation.HOLDS, (
                        small.variant, small.environment, large.environment, prop
                    )


def test_l3_and_l4_are_judged_at_two_instance_sizes() -> None:
    for cell in EXPECTED:
        assert set(cell.wider) == set(WIDER_PROPERTIES)
        for prop, wider in cell.wider.items():
            if wider is not cell.expectations[prop]:
                assert "depends on" in cell.why, (cell.variant, cell.environment, prop)
    assert expected_cell("V3", ("D6",)).wider["L3"] is Expectation.BREAKS
    assert config_for(V3, ("D6",), WIDER_IN_FLIGHT).max_in_flight == 3
