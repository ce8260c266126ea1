"""An independent set of single-change mutants of the reference for the observations a
lockstep step compares beyond the caches' contents: the identities a rejection names, the
processor calls a step makes, what a rejected call leaves behind, and sizes in bytes.

None is one of the other sets' (`mutants`, `reference_mutants`, `serving_mutants`,
`client_mutants`). `observed_mutant_<name>` factories serve `--adapter`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from model_checks.conform.mutant_factory import (
    ImplMutant,
    front_end_with,
    impl_mutant,
    mutant_named,
)
from model_checks.conform.reference_adapter import ReferenceAdapter
from reference import Outgoing, SenderCache


class NoLateMissPreCheck(SenderCache):
    """V3's check that rejects unprocessable late misses before any change is gone: the
    processor runs on the reprocessable ones first, and the rejection names one identity."""

    def _reject_unprocessable_late_misses(self, outgoing: Sequence[Outgoing],
                                          process: Any) -> None:
        return None


OBSERVED_MUTANTS: tuple[ImplMutant, ...] = (
    impl_mutant("p0-late-miss-pre-check-dropped", "V3",
                "unprocessable late misses are found one by one, after processing",
                front_end=front_end_with(NoLateMissPreCheck)),
)


def by_name(name: str) -> ImplMutant:
    return mutant_named(OBSERVED_MUTANTS, name)


def __getattr__(name: str) -> Callable[[], ReferenceAdapter]:
    """`observed_mutant_<name>` factories, one per mutant, for `--adapter module:factory`."""
    prefix = "observed_mutant_"
    if name.startswith(prefix):
        mutant = by_name(name[len(prefix):].replace("_", "-"))
        return lambda: mutant.adapter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
