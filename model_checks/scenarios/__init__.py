"""The hand-written scenario suite (one or more traces per drift source)."""

from model_checks.scenarios.base import Scenario, violated
from model_checks.scenarios.catalog import SCENARIOS

__all__ = ["SCENARIOS", "Scenario", "violated"]
