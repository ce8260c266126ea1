"""The reference implementation's mutants, built from the registry: each entry's class (its
`definition`) wired into the reference adapter in the place its `part` names
(`factory.PARTS`), checked against the spec of its base variant.

`--adapter model_checks.mutant_run.reference_mutants:mutant_<name>` (the name with `-` spelt
`_`) puts one under the command line; `adapter_path` spells it.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable

from model_checks.conform.reference_adapter import ReferenceAdapter
from model_checks.mutant_run.factory import PARTS, ImplMutant, adapter_factories
from model_checks.mutation.registry import Entry, MutantSet, Target, entries

FACTORY_PREFIX = "mutant_"
"""The prefix of this module's adapter factories (`mutant_<name>`)."""


@functools.cache
def _built(entry: Entry) -> ImplMutant:
    if entry.target is not Target.REFERENCE or entry.part is None:
        raise ValueError(f"{entry.name} is not a reference mutant with a part to replace")
    cls = getattr(importlib.import_module(entry.module), entry.attr)
    return PARTS[entry.part](entry.name, entry.base, entry.story, cls)


def reference_mutants(*sets: MutantSet) -> tuple[ImplMutant, ...]:
    """The reference mutants of `sets` (none given: every set), in registry order, each built
    once per process (the same adapter wherever it is asked for)."""
    return tuple(_built(e) for e in entries(Target.REFERENCE, sets or tuple(MutantSet)))


def history_mutants() -> tuple[ImplMutant, ...]:
    """The bugs of the system's history, reproduced in the reference."""
    return reference_mutants(MutantSet.HISTORY)


def slip_mutants() -> tuple[ImplMutant, ...]:
    """The independent set of single-change slips."""
    return reference_mutants(MutantSet.SLIP)


def adapter_path(mutant: ImplMutant) -> str:
    """The `module:factory` path of a mutant's adapter (for the CLI and the engine process)."""
    return f"{__name__}:{FACTORY_PREFIX}{mutant.name.replace('-', '_')}"


def __getattr__(name: str) -> Callable[[], ReferenceAdapter]:
    """`mutant_<name>` factories, one per reference mutant, for `--adapter module:factory`."""
    if not name.startswith(FACTORY_PREFIX):  # no mutant is built to answer another name
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return adapter_factories(__name__, FACTORY_PREFIX, reference_mutants())(name)
