"""The hand-written scenario suites (one or more traces per drift source), replayed on every
variant by the one runner `run`, generic over a design's suite (`run.ScenarioSuite`). The LRU
design's suite is its per-design declaration: `base` holds what an LRU scenario is (its
script, the same for every variant, and the properties each variant must break) and how it
runs; `catalog` holds the suite itself (`SCENARIOS`, read through `catalog.suite_for`), each
expectation reasoned from the protocol. This package re-exports them by name."""

from model_checks.scenarios.base import Scenario, violated
from model_checks.scenarios.catalog import SCENARIOS

__all__ = ["SCENARIOS", "Scenario", "violated"]
