"""The mutant registry (`model_checks.mutation.registry`): every entry loads and is what its
target says (a spec mutant: a `Variant` with knobs changed; a reference mutant: a subclass of
the reference class its part names, in the reference adapter), and the runners read it (the
`mutants` command and the kill matrix follow a registry with an entry taken out)."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator

import pytest

from model_checks.conform.reference_adapter import ReferenceAdapter
from model_checks.mutant_run import checkers, killmatrix
from model_checks.mutant_run import reference_mutants as reference_module
from model_checks.mutant_run.factory import mutant_named
from model_checks.mutant_run.reference_mutants import (
    history_mutants,
    reference_mutants,
    slip_mutants,
)
from model_checks.mutation import registry
from model_checks.mutation.registry import (
    HISTORY_DEFINITIONS,
    SLIP_DEFINITIONS,
    SPEC_DEFINITIONS,
    MutantSet,
    Part,
    Target,
    entries,
)
from model_checks.mutation.spec_mutants import Change, spec_mutants
from model_checks.mutation.spec_mutants import mutant as spec_mutant_of
from reference import Engine, FrontEnd, ReceiverCache, SenderCache
from reference.lru import ByteLru
from spec import Variant, variant_named

REPLACES: dict[Part, type] = {
    Part.SENDER: SenderCache,
    Part.RECEIVER: ReceiverCache,
    Part.SENDER_LRU: ByteLru,
    Part.RECEIVER_LRU: ByteLru,
    Part.FRONT_END: FrontEnd,
    Part.ENGINE: Engine,
    Part.ADAPTER: ReferenceAdapter,
}
"""The reference class each part's mutant class must subclass."""

DEFINITIONS = {MutantSet.KNOB: SPEC_DEFINITIONS, MutantSet.HISTORY: HISTORY_DEFINITIONS,
               MutantSet.SLIP: SLIP_DEFINITIONS}


def test_names_are_unique_per_target_and_each_set_lives_in_its_module() -> None:
    for target in Target:
        names = [e.name for e in entries(target)]
        assert len(names) == len(set(names)), target
    for entry in registry.MUTANTS:
        assert entry.module == DEFINITIONS[entry.set]
        assert (entry.target is Target.SPEC) == (entry.set is MutantSet.KNOB), entry.name
        assert (entry.part is None) == (entry.target is Target.SPEC), entry.name
        assert bool(entry.breaks) == (entry.target is Target.SPEC), entry.name
        variant_named(entry.base)  # a variant there is


def test_every_spec_entry_is_a_variant_with_knobs_changed() -> None:
    built = spec_mutants()
    assert [m.name for m in built] == [e.name for e in entries(Target.SPEC)]
    for entry, mutant in zip(entries(Target.SPEC), built, strict=True):
        change = getattr(importlib.import_module(entry.module), entry.attr)
        assert isinstance(change, Change) and change.knobs, entry.name
        assert isinstance(mutant.variant, Variant) and mutant.variant != mutant.base
        assert mutant.base == variant_named(entry.base) and mutant.breaks == entry.breaks
        assert mutant.witness is change.witness


def test_every_reference_entry_is_a_subclass_of_the_part_it_replaces() -> None:
    built = reference_mutants()
    assert [m.name for m in built] == [e.name for e in entries(Target.REFERENCE)]
    for entry, mutant in zip(entries(Target.REFERENCE), built, strict=True):
        assert entry.part is not None
        cls = getattr(importlib.import_module(entry.module), entry.attr)
        assert isinstance(cls, type) and issubclass(cls, REPLACES[entry.part]), entry.name
        assert cls not in REPLACES.values(), f"{entry.name} is the reference itself"
        assert isinstance(mutant.adapter, ReferenceAdapter)
        assert (mutant.base, mutant.story) == (entry.base, entry.story)
        assert mutant.adapter.name == f"reference-{entry.name}"
        assert mutant_named(reference_mutants(), entry.name) is mutant  # built once


def test_an_entry_of_the_wrong_target_is_refused() -> None:
    spec_entry, reference_entry = entries(Target.SPEC)[0], entries(Target.REFERENCE)[0]
    with pytest.raises(TypeError, match="not a Change"):
        spec_mutant_of(reference_entry)
    with pytest.raises(ValueError, match="not a reference mutant"):
        reference_module._built(spec_entry)


@pytest.fixture
def without_ghost_touch(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The registry with the history mutant `ghost-touch` taken out (the spec's kept)."""
    kept = tuple(e for e in registry.MUTANTS
                 if not (e.name == "ghost-touch" and e.set is MutantSet.HISTORY))
    monkeypatch.setattr(registry, "MUTANTS", kept)
    spec_mutants.cache_clear()
    yield
    spec_mutants.cache_clear()


@pytest.mark.usefixtures("without_ghost_touch")
def test_the_mutants_command_and_the_kill_matrix_read_the_registry() -> None:
    assert "ghost-touch" not in [m.name for m in history_mutants()]
    assert len(slip_mutants()) == len(entries(Target.REFERENCE, (MutantSet.SLIP,)))
    selection = checkers.select(None)
    assert "ghost-touch" in [m.name for m in selection.spec]
    assert "ghost-touch" not in [m.name for m in selection.impl]
    assert not checkers.applies("conformance", "ghost-touch")
    assert checkers.applies("scenario", "ghost-touch")
    committed = json.loads((killmatrix.DEFAULT_PATH.parent / "results" /
                            "kill-matrix.json").read_text())
    with pytest.raises(ValueError, match="regenerate them"):
        killmatrix.rows_from_json(committed)  # the kill matrix's rows are the registry's
