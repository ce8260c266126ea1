"""The Z3 side's one table keyed by action class is its relations (`smt.encode.relations`);
the action codes, the decoding of a model's step and the cross-check's pinning are derived from
`spec.ACTION_TYPES` and the classes' fields. Planted action classes (fixture subclasses of
`Action`) show each derivation failing with a message naming the class and the file to edit,
and a planted event with a relation getting its codes and decoding with no other edit."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

import pytest
import z3

from model_checks.smt.decode.fields import (
    FIELDS,
    FieldCodec,
    ModelStep,
    UnknownField,
    decode_action,
)
from model_checks.smt.encode.actions import ACTIONS, ActionEncoding, encodings
from model_checks.smt.encode.args import Step, args_at
from model_checks.smt.encode.drift_events import p0_clear
from model_checks.smt.encode.relations import (
    RELATIONS,
    MissingRelation,
    Registered,
    per_front_end,
    relation,
)
from model_checks.smt.encode.symbols import Encoding, SymState
from spec import ACTION_TYPES, V2, Action, Config, Drift, State, environment
from spec import transitions as t


def unknown_fields(
    action_types: tuple[type[Action], ...], known: dict[str, FieldCodec] = FIELDS,
) -> list[str]:
    """"Class.field" for every field of `action_types` that `known` does not map (empty: every
    action can be decoded and cross-checked)."""
    return [f"{cls.__name__}.{f.name}" for cls in action_types
            for f in dataclasses.fields(cls) if f.name not in known]


@dataclass(frozen=True, slots=True)
class PlantedWipe(Action):
    """A fixture drift event of a front end (not in the spec): wipes its shadow under D3."""

    label = "planted_wipe"
    drift = Drift.D3
    requires = Drift.D3
    front_end: int = 0

    def guard(self, config: Config, state: State) -> bool:
        return True

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        yield cls()


@dataclass(frozen=True, slots=True)
class PlantedColour(Action):
    """A fixture action with a field no step argument maps."""

    label = "planted_colour"
    colour: int = 0


def _table() -> dict[type[Action], Registered]:
    return dict(RELATIONS)


def test_arch_smt_a_class_without_a_relation_is_named_with_the_file_to_edit() -> None:
    with pytest.raises(MissingRelation, match=r"no Z3 relation for PlantedWipe: write it .*"
                       r"model_checks/smt/encode/drift_events\.py.*@per_front_end"):
        encodings((*ACTION_TYPES, PlantedWipe), _table())


def test_arch_smt_a_relation_for_no_spec_class_is_named() -> None:
    table = _table()
    relation(PlantedColour, table)(lambda enc, p, s, a: cast(Step, None))
    with pytest.raises(MissingRelation, match=r"PlantedColour, which spec\.ACTION_TYPES"):
        encodings(ACTION_TYPES, table)


def test_arch_smt_a_class_registered_twice_is_refused() -> None:
    table = _table()
    with pytest.raises(ValueError, match="P0Clear has two Z3 relations; register it once"):
        per_front_end(t.P0Clear, table)(p0_clear)


def test_arch_smt_a_registered_event_gets_its_codes_from_the_spec_order() -> None:
    """The one edit on the Z3 side: the relation, registered. Its codes follow the spec's
    classes, once per front end, enabled by its class's `requires` (and D5 for front end 1)."""
    table = _table()
    per_front_end(PlantedWipe, table)(p0_clear)
    derived = encodings((*ACTION_TYPES, PlantedWipe), table)
    assert derived[:len(ACTIONS)] == tuple(
        ActionEncoding(e.spec_class, derived[i].relation, e.requires, e.front_end, e.engine)
        for i, e in enumerate(ACTIONS))
    planted = derived[len(ACTIONS):]
    assert [(e.spec_class, e.front_end, e.engine, e.requires) for e in planted] == [
        (PlantedWipe, 0, None, (Drift.D3,)), (PlantedWipe, 1, None, (Drift.D3, Drift.D5))]
    assert unknown_fields((PlantedWipe,)) == []


def test_arch_smt_a_registered_event_is_decoded_from_its_fields() -> None:
    enc = Encoding(V2, environment("D3", "D5"))
    model = _any_model()
    for fe in (0, 1):
        action = ActionEncoding(PlantedWipe, p0_clear(fe), (Drift.D3,), front_end=fe)
        step = ModelStep(enc, model, cast(SymState, {}), args_at(0), action)
        assert decode_action(step) == PlantedWipe(fe)


def test_arch_smt_every_spec_field_is_mapped_and_an_unknown_one_is_named() -> None:
    assert unknown_fields(ACTION_TYPES) == []
    assert unknown_fields((*ACTION_TYPES, PlantedColour)) == ["PlantedColour.colour"]
    action = ActionEncoding(PlantedColour, cast(object, None))  # type: ignore[arg-type]
    step = ModelStep(Encoding(V2, environment()), _any_model(), {}, args_at(0), action)
    with pytest.raises(UnknownField, match=r"PlantedColour\.colour: .*FIELDS in "
                       r"model_checks/smt/decode/fields\.py"):
        decode_action(step)


def _any_model() -> z3.ModelRef:
    solver = z3.Solver()
    assert solver.check() == z3.sat
    return solver.model()


def test_arch_smt_the_error_names_the_modules_that_register() -> None:
    """The modules a missing relation's message names are the ones `actions` imports for
    their registrations, and each of them registers some relation."""
    from model_checks.smt.encode import actions, relations

    names = tuple(m.__name__.rpartition(".")[2] for m in actions.RELATION_MODULES)
    assert names == relations.RELATION_MODULES
    owners = {r.relation_of(0).__module__ for r in RELATIONS.values()}
    assert owners == {m.__name__ for m in actions.RELATION_MODULES}
