"""Replay the scenario suite on every variant and compare with the expected violations."""

from __future__ import annotations

from dataclasses import dataclass

from model_checks.kernel.verdict_records import SCENARIOS as SCENARIO_CHECKER
from model_checks.kernel.verdict_records import Verdict, VerdictRecord
from model_checks.scenarios import SCENARIOS, Scenario, violated
from spec import VARIANTS, registry
from spec.drift import Environment


@dataclass(frozen=True, slots=True)
class ScenarioVerdict:
    scenario: str
    drift: tuple[str, ...]
    variant: str
    expected: frozenset[str]
    found: frozenset[str]
    steps: int
    judges_cell: bool = True

    @property
    def as_expected(self) -> bool:
        return self.expected == self.found


def replay(scenario: Scenario) -> list[ScenarioVerdict]:
    verdicts = []
    for variant in VARIANTS:
        trace = scenario.run(variant)
        verdicts.append(
            ScenarioVerdict(
                scenario.name,
                scenario.drift,
                variant.name,
                scenario.expected[variant.name],
                violated(trace),
                len(trace.steps),
                scenario.judges_cell,
            )
        )
    return verdicts


def replay_all() -> list[ScenarioVerdict]:
    return [v for scenario in SCENARIOS for v in replay(scenario)]


def verdicts_json(verdicts: list[ScenarioVerdict]) -> list[dict[str, object]]:
    """The suite's verdicts as the docs keep them (`docs/results/scenarios.json`)."""
    return [{"scenario": v.scenario, "drift": list(v.drift), "variant": v.variant,
             "expected": sorted(v.expected), "found": sorted(v.found), "steps": v.steps,
             "judges_cell": v.judges_cell} for v in verdicts]


def verdicts_from_json(data: list[dict[str, object]]) -> list[ScenarioVerdict]:
    """`verdicts_json`'s value read back; `ValueError` if it is not one."""
    def names(value: object) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise TypeError(f"got {value!r:.40}, expected a list")
        return tuple(str(v) for v in value)

    try:
        return [ScenarioVerdict(str(d["scenario"]), names(d["drift"]), str(d["variant"]),
                                frozenset(names(d["expected"])), frozenset(names(d["found"])),
                                int(str(d["steps"])), bool(d["judges_cell"])) for d in data]
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a scenario verdicts file ({error})") from None


def records(verdicts: list[ScenarioVerdict]) -> list[VerdictRecord]:
    """One record per scenario, variant and property: broken (with the run's length) or not;
    none for a scenario on a larger instance than the matrix's (`Scenario.judges_cell`)."""
    return [
        VerdictRecord(
            SCENARIO_CHECKER.record, v.variant, v.drift, prop.id,
            Verdict.COUNTEREXAMPLE if prop.id in v.found else Verdict.HOLDS,
            v.steps, "steps", 0.0,
            counterexample_length=v.steps if prop.id in v.found else None,
            detail=f"scenario {v.scenario}",
        )
        for v in verdicts if v.judges_cell for prop in registry()
    ]


def _cell(verdict: ScenarioVerdict) -> str:
    found = " ".join(sorted(verdict.found)) or "ok"
    if verdict.as_expected:
        return found
    return f"{found} (expected {' '.join(sorted(verdict.expected)) or 'ok'})!"


def table(verdicts: list[ScenarioVerdict]) -> str:
    """One row per scenario, one column per variant: the properties the run violated."""
    names = [v.name for v in VARIANTS]
    rows: dict[str, dict[str, str]] = {}
    drift: dict[str, str] = {}
    for verdict in verdicts:
        rows.setdefault(verdict.scenario, {})[verdict.variant] = _cell(verdict)
        drift[verdict.scenario] = Environment.of(verdict.drift).text
    header = ["scenario", "drift", *names]
    body = [[name, drift[name], *(cells[n] for n in names)] for name, cells in rows.items()]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in [header, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def report_scenarios(verdicts: list[ScenarioVerdict]) -> int:
    """Print the suite's table and how many verdicts were as expected; exit 0 if all were,
    else 1."""
    print("Scenario suite: properties violated per scenario and variant (ok: none)")
    print(table(verdicts))
    wrong = [v for v in verdicts if not v.as_expected]
    print(f"\n{len(verdicts) - len(wrong)} of {len(verdicts)} verdicts as expected")
    return 1 if wrong else 0


def run(args: object) -> int:
    """`scenarios`: replay the suite on every variant (it takes no arguments)."""
    return report_scenarios(replay_all())
