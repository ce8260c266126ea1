"""Profiles: how much a checker does, chosen by name (`--profile NAME`). One type for every
checker: a checker's profile is a `Profile`, its name from `PROFILE_NAMES`, with the fields
of that checker's budget (`simulate.profiles.SimulateProfile`: examples and steps;
`conform.profiles.ConformProfile`: walks and their length; `explore.command.ExploreProfile`:
states per graph and the instances tried; `explore.lattice_profiles.LatticeProfile`: the
rungs the lattice climbs). A budget is a count, never seconds: a verdict is a function of the
query, whatever the machine. `tests/architecture/test_arch_profiles.py` holds every profile
class of `model_checks/` to this type and every table of profiles to its names. Importing
this module imports no checker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

PROFILE_NAMES = ("ci", "dev", "nightly")
"""The profiles a checker may have: `ci`, the main job's (small, derandomized, fixed
budgets); `dev`, a longer local run; `nightly`, the long runs. A checker need not have all."""


@dataclass(frozen=True)
class Profile:
    """A named budget; each checker's profile extends it with the fields of its budget."""

    name: str


P = TypeVar("P", bound=Profile)


def profile_table(*profiles: P) -> dict[str, P]:
    """A checker's profiles keyed by their names, which must be among `PROFILE_NAMES` and
    distinct (a `ValueError` otherwise: the table is built at import)."""
    table = {profile.name: profile for profile in profiles}
    unknown = [name for name in table if name not in PROFILE_NAMES]
    if unknown or len(table) != len(profiles):
        raise ValueError(f"profiles {[p.name for p in profiles]}: each name once, among "
                         f"{', '.join(PROFILE_NAMES)}")
    return table

