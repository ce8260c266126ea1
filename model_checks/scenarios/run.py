"""Replay a design's scenario suite on every variant and compare with the expected violations.

The runner reads no design's spec: a design declares its suite (`ScenarioSuite`, the table
`scenarios.catalog.suite_for`; the LRU design's: `scenarios.catalog.SCENARIOS`), its
variants, the properties a run is judged by, and how a scenario runs on a variant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from model_checks.kernel.text_table import grid
from model_checks.kernel.verdict_records import SCENARIOS as SCENARIO_CHECKER
from model_checks.kernel.verdict_records import Verdict, VerdictRecord
from model_checks.scenarios.catalog import suite_for
from spec.designs.base import DEFAULT_DESIGN, UnknownDesign
from spec.drift import Environment


class SuiteScenario(Protocol):
    """A scenario as the runner reads it: its name, the drift sources it exercises, the
    properties each variant must break, and whether its verdicts are records of the
    matrix's cells."""

    @property
    def name(self) -> str: ...
    @property
    def drift(self) -> tuple[str, ...]: ...
    @property
    def expected(self) -> Mapping[str, frozenset[str]]: ...
    @property
    def judges_cell(self) -> bool: ...


class ScenarioSuite(Protocol):
    """A design's hand-written scenario suite: its variants, the properties a run is judged
    by (in the order records are written), its scenarios (each a `SuiteScenario`), and how
    one runs on a variant (`run`: the properties it violates and the run's steps)."""

    @property
    def variants(self) -> tuple[str, ...]: ...
    @property
    def properties(self) -> tuple[str, ...]: ...
    @property
    def scenarios(self) -> Sequence[Any]: ...
    def run(self, scenario: Any, variant: str) -> tuple[frozenset[str], int]: ...


def suite_of(design: str = DEFAULT_DESIGN) -> ScenarioSuite:
    """The scenario suite `design` declares; `UnknownDesign` for none."""
    found = suite_for(design)
    if found is None:
        raise UnknownDesign(f"design {design!r} declares no scenario suite")
    return found


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


def replay(scenario: SuiteScenario, design: str = DEFAULT_DESIGN) -> list[ScenarioVerdict]:
    """`scenario` of `design`'s suite run on every variant of the suite."""
    suite = suite_of(design)
    verdicts = []
    for variant in suite.variants:
        found, steps = suite.run(scenario, variant)
        verdicts.append(ScenarioVerdict(scenario.name, scenario.drift, variant,
                                        scenario.expected[variant], found, steps,
                                        scenario.judges_cell))
    return verdicts


def replay_all(design: str = DEFAULT_DESIGN) -> list[ScenarioVerdict]:
    """Every scenario of `design`'s suite on every variant."""
    return [v for scenario in suite_of(design).scenarios for v in replay(scenario, design)]


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


def records(verdicts: list[ScenarioVerdict], design: str = DEFAULT_DESIGN
            ) -> list[VerdictRecord]:
    """One record per scenario, variant and property of `design`'s suite: broken (with the
    run's length) or not; none for a scenario on a larger instance than the matrix's
    (`SuiteScenario.judges_cell`)."""
    properties = suite_of(design).properties
    return [
        VerdictRecord(
            SCENARIO_CHECKER.record, v.variant, v.drift, prop,
            Verdict.COUNTEREXAMPLE if prop in v.found else Verdict.HOLDS,
            v.steps, "steps", 0.0,
            counterexample_length=v.steps if prop in v.found else None,
            detail=f"scenario {v.scenario}",
        )
        for v in verdicts if v.judges_cell for prop in properties
    ]


def _cell(verdict: ScenarioVerdict) -> str:
    found = " ".join(sorted(verdict.found)) or "ok"
    if verdict.as_expected:
        return found
    return f"{found} (expected {' '.join(sorted(verdict.expected)) or 'ok'})!"


def table(verdicts: list[ScenarioVerdict], design: str = DEFAULT_DESIGN) -> str:
    """One row per scenario, one column per variant: the properties the run violated."""
    names = list(suite_of(design).variants)
    rows: dict[str, dict[str, str]] = {}
    drift: dict[str, str] = {}
    for verdict in verdicts:
        rows.setdefault(verdict.scenario, {})[verdict.variant] = _cell(verdict)
        drift[verdict.scenario] = Environment.of(verdict.drift).text
    body = [[name, drift[name], *(cells[n] for n in names)] for name, cells in rows.items()]
    return grid(["scenario", "drift", *names], body)


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
