"""Conformance profiles: how much a run does. Kept apart from `run` so that the command line
can list them without importing torch (a usage error answers before any checker loads)."""

from __future__ import annotations

from dataclasses import dataclass

from model_checks.kernel.profiles import Profile, profile_table


@dataclass(frozen=True)
class ConformProfile(Profile):
    """Hypothesis examples per configuration (`walks`), the most steps per example
    (`length`), whether the scenario corpus runs, and an example database (None: none)."""

    walks: int
    length: int
    corpus: bool = True
    wide: bool = False  # also the wide configuration (4 identities, budget 4): slower steps
    database: str | None = None


PROFILES: dict[str, ConformProfile] = profile_table(
    ConformProfile("ci", walks=2, length=20),
    ConformProfile("dev", walks=12, length=30, wide=True),
    ConformProfile("nightly", walks=150, length=40, wide=True),
)

__all__ = ["PROFILES", "ConformProfile"]
