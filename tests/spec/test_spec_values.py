"""`quick_init`: the state's dataclasses build the same values as their dataclass constructor."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass

import pytest

from spec import lru, state
from spec.values import quick_init

QUICK = (state.Fault, state.ClientItem, state.WireItem, state.Message, state.Reply,
         state.P0Work, state.Request, state.Processing, state.Served, state.Delivery,
         state.State, lru.Entry, lru.Ghost)


def is_quick(cls: type) -> bool:
    """True when `cls.__init__` is the one `quick_init` made (it names the slot setters)."""
    return "_set0" in cls.__init__.__code__.co_names


def constructor_defects(cls: type) -> list[str]:
    """How `cls(...)` differs from its dataclass constructor: the signature (names, order,
    defaults), where each argument lands, positionally and by keyword, what an omitted
    default gives, and that the value stays frozen."""
    fields = dataclasses.fields(cls)
    found = []
    expected = [(f.name, inspect.Parameter.empty if f.default is dataclasses.MISSING
                 else f.default) for f in fields]
    actual = [(p.name, p.default) for p in inspect.signature(cls).parameters.values()]
    if actual != expected:
        found.append(f"signature {actual}, expected {expected}")
    markers = [object() for _ in fields]  # a distinct value per field: where did each land?
    for value in (cls(*markers), cls(**{f.name: m for f, m in zip(fields, markers, strict=True)})):
        landed = [getattr(value, f.name) for f in fields]
        if any(a is not m for a, m in zip(landed, markers, strict=True)):
            found.append(f"arguments land in the wrong fields: {landed}")
    required = [m for f, m in zip(fields, markers, strict=True) if f.default is dataclasses.MISSING]
    defaults = cls(*required)
    for f in fields:
        if f.default is not dataclasses.MISSING and getattr(defaults, f.name) != f.default:
            found.append(f"omitted {f.name} is {getattr(defaults, f.name)!r}, not {f.default!r}")
    try:
        setattr(defaults, fields[0].name, None)
        found.append("a field can be assigned: the value is not frozen")
    except dataclasses.FrozenInstanceError:
        pass
    return found


@pytest.mark.parametrize("cls", QUICK, ids=lambda c: c.__name__)
def test_the_quick_constructor_builds_the_dataclass_value(cls: type) -> None:
    assert is_quick(cls), f"{cls.__name__} keeps the dataclass constructor"
    assert constructor_defects(cls) == []


def test_a_constructor_that_swaps_two_fields_is_caught() -> None:
    @dataclass(frozen=True, slots=True)
    class Swapped:
        a: int
        b: int = 0

        def __init__(self, a: int, b: int = 0) -> None:
            object.__setattr__(self, "a", b)
            object.__setattr__(self, "b", a)

    assert any("wrong fields" in d for d in constructor_defects(Swapped))


def test_a_constructor_with_another_default_is_caught() -> None:
    @dataclass(frozen=True, slots=True)
    class Defaulted:
        a: int
        b: int = 0

        def __init__(self, a: int, b: int = 1) -> None:
            object.__setattr__(self, "a", a)
            object.__setattr__(self, "b", b)

    defects = constructor_defects(Defaulted)
    assert any("signature" in d for d in defects) and any("omitted b" in d for d in defects)


def test_only_plain_slotted_dataclasses_get_the_quick_constructor() -> None:
    @dataclass(frozen=True)
    class Unslotted:
        a: int

    @dataclass(frozen=True, slots=True)
    class Factory:
        a: tuple[int, ...] = dataclasses.field(default_factory=tuple)

    for cls in (Unslotted, Factory):
        before = cls.__init__
        assert quick_init(cls).__init__ is before


def test_values_built_quickly_are_equal_and_hash_alike() -> None:
    request = state.Request(0, 0, (state.ClientItem("a"),))
    again = state.Request(rid=0, front_end=0, items=(state.ClientItem(identity="a"),))
    assert request == again and hash(request) == hash(again)
    assert request.evolve(stage=state.Stage.DONE) == dataclasses.replace(
        request, stage=state.Stage.DONE)
