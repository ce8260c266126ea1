"""The Hypothesis machines: printed traces replay, findings are real, fair tails match spec."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

import spec
from model_checks.kernel.instance import config_for
from model_checks.simulate import machine as machines
from model_checks.simulate.lru_rules import LRU_RULES
from model_checks.simulate.machine import (
    PropertyViolated,
    RuleStats,
    machine_class,
    rule_names,
)
from model_checks.simulate.run import PROFILES, search, shrink_bound
from model_checks.simulate.witnesses import shortest_witness
from spec import V0, V1, V2, V3


def _find(name: str, variant: spec.Variant, env: tuple[str, ...], prop: str) -> PropertyViolated:
    cls = machine_class(name, LRU_RULES, config_for(variant, env), [prop])
    profile = PROFILES["ci"]
    with pytest.raises(PropertyViolated) as caught, shrink_bound(profile.max_shrinks):
        run_state_machine_as_test(cls, settings=profile.settings(300))
    return caught.value


def test_a_printed_trace_executed_fails() -> None:
    """Hypothesis prints `state = Name()` without constructor arguments: the configuration
    must live in the class, so that the printed trace, executed as is, fails again."""
    found = search("test_V0_D1", config_for(V0, ("D1",)), ["S3"], PROFILES["ci"], 300,
                   RuleStats()).finding
    assert found is not None and found.property_id == "S3"
    printed = found.hypothesis_trace
    assert printed.startswith("state = test_V0_D1__S3()")
    namespace = {**vars(machines), **{n: getattr(spec, n) for n in spec.__all__}}
    with pytest.raises(PropertyViolated, match="S3 violated"):
        exec(printed, namespace)  # the exact text Hypothesis reported


def test_the_same_name_gives_the_same_class() -> None:
    config = config_for(V2, ())
    first = machine_class("test_same", LRU_RULES, config, ["S1"])
    assert machine_class("test_same", LRU_RULES, config, ["S1"]) is first
    assert machines.test_same is first  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="another configuration"):
        machine_class("test_same", LRU_RULES, config, ["S2"])
    assert not hasattr(machines, "test_never_built")


def test_a_finding_is_a_real_trace_of_the_spec() -> None:
    error = _find("test_V2_D1_H1", V2, ("D1",), "H1")
    trace = error.trace
    replayed = spec.run(trace.config, [s.action for s in trace.steps])
    assert replayed == trace
    assert spec.by_id("H1").check_trace(trace) is not None
    assert error.step_number <= len(trace.steps)


def test_no_drift_v3_holds_everything_on_a_small_budget() -> None:
    props = list(spec.property_ids())
    cls = machine_class("test_V3_none_all", LRU_RULES, config_for(V3, ()), props)
    cls.stats = RuleStats()
    run_state_machine_as_test(cls, settings=settings(PROFILES["ci"].settings(30)))
    assert cls.stats.steps > 0
    assert not cls.stats.never_fired()


def test_rules_are_the_actions_the_configuration_allows() -> None:
    assert "p1_clear" not in rule_names(LRU_RULES, config_for(V2, ()))
    assert "p1_clear" in rule_names(LRU_RULES, config_for(V2, ("D3",)))
    assert {"submit", "p0_handle", "p1_receive", "p0_receive_reply", "retry"} <= set(
        rule_names(LRU_RULES, config_for(V2, ()))
    )


def test_rule_stats_report_rules_enabled_but_never_fired() -> None:
    stats = RuleStats()
    stats.enabled.update({"submit": 30, "retry": 20, "p1_clear": 0, "p1_reset": 2})
    stats.fired.update({"submit": 1})
    assert stats.never_fired() == ["retry"]


@pytest.mark.parametrize(
    ("env", "prop"),
    [(("D3",), "L4"), (("D10",), "L4"), (("D4",), "L4"), (("D2",), "L1"), (("D6",), "L1"),
     (("D5",), "L3"), (("D9",), "L3"), (("D1",), "L3")],
)
def test_explicit_witnesses_break_what_they_are_for(env: tuple[str, ...], prop: str) -> None:
    for variant in (V1, V2, V3):
        found = shortest_witness(config_for(variant, env), env, prop)
        assert found is not None, (variant.name, env, prop)
        name, trace, step, _, _ = found
        violation = spec.by_id(prop).check_trace(trace)
        assert violation is not None and violation.step == step, name


@pytest.mark.parametrize(
    ("env", "prop", "variants"),
    [(("D1",), "L2", (V1, V2, V3)), (("D3",), "L2", (V1, V2, V3)), (("D4",), "L2", (V1, V2, V3)),
     (("D10",), "L2", (V1, V2, V3)), (("D9",), "L2", (V1, V2, V3)), (("D9",), "L4", (V1, V2, V3)),
     (("D8",), "L1", (V1, V2)), (("D8",), "L2", (V1, V2)), (("D8",), "L3", (V1, V2)),
     (("D6",), "L3", (V1, V2, V3))],
)
def test_witnesses_of_l2_and_of_request_level_assertions(
    env: tuple[str, ...], prop: str, variants: tuple[spec.Variant, ...]
) -> None:
    for variant in variants:
        found = shortest_witness(config_for(variant, env), env, prop)
        assert found is not None, (variant.name, env, prop)
