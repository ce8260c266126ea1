"""A reference mutant by name, for the tests (`model_checks.mutant_run.reference_mutants`)."""

from __future__ import annotations

from collections.abc import Iterable

from model_checks.mutant_run.factory import ImplMutant, mutant_named
from model_checks.mutant_run.reference_mutants import reference_mutants


def by_name(name: str, mutants: Iterable[ImplMutant] | None = None) -> ImplMutant:
    """The reference mutant called `name` among `mutants` (default: every reference mutant);
    a `KeyError` lists the names there are."""
    return mutant_named(reference_mutants() if mutants is None else mutants, name)
