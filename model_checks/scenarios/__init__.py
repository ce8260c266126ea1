"""The hand-written scenario suite (one or more traces per drift source), replayed on every variant
by `run`: `base` holds what a scenario is (its script, the same for every variant, and the
properties each variant must break) and how it runs; `catalog` holds the suite itself (`SCENARIOS`),
each expectation reasoned from the protocol."""

from model_checks.scenarios.base import Scenario, violated
from model_checks.scenarios.catalog import SCENARIOS

__all__ = ["SCENARIOS", "Scenario", "violated"]
