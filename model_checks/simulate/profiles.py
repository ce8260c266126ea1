"""Search budgets of the Hypothesis machines, importable without Hypothesis (the command line
lists them before it imports any checker)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from model_checks.kernel.profiles import Profile, profile_table

if TYPE_CHECKING:
    from hypothesis import settings as Settings


@dataclass(frozen=True)
class SimulateProfile(Profile):
    """A search budget of the Hypothesis machines. `holds_examples`: examples for the search
    over must-hold properties; `break_examples`: the most examples a must-break search may
    take to find its counterexample; `steps`: the most rule steps per example;
    `max_shrinks`: the most times Hypothesis's shrinking may replace a counterexample with a
    smaller one (a count, never seconds: with `derandomize` the counterexample and the steps
    a search takes are then a function of the profile and the cell, whatever the machine; 0:
    no shrinking); `jobs`: local worker processes (a cluster run uses the cluster's workers
    instead)."""

    holds_examples: int
    break_examples: int
    steps: int
    derandomize: bool
    use_database: bool
    max_shrinks: int
    jobs: int = 2

    def settings(self, examples: int) -> Settings:
        from hypothesis import HealthCheck, Phase, settings
        from hypothesis.database import DirectoryBasedExampleDatabase

        return settings(
            max_examples=examples,
            stateful_step_count=self.steps,
            derandomize=self.derandomize,
            database=DirectoryBasedExampleDatabase(".hypothesis/examples")
            if self.use_database
            else None,
            deadline=None,
            report_multiple_bugs=False,
            suppress_health_check=list(HealthCheck),
            phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
            print_blob=False,
        )


PROFILES: dict[str, SimulateProfile] = profile_table(
    SimulateProfile("ci", holds_examples=30, break_examples=100, steps=20, derandomize=True,
                    use_database=False, max_shrinks=10),
    SimulateProfile("dev", holds_examples=300, break_examples=2000, steps=30,
                    derandomize=False, use_database=True, max_shrinks=100),
    SimulateProfile("nightly", holds_examples=3000, break_examples=20000, steps=40,
                    derandomize=False, use_database=False, max_shrinks=500),
)
