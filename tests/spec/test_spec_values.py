"""The state's value classes: `quick_init` builds the same values as their dataclass
constructor; each class's own `__init__`, `__eq__` and `__hash__` (what the compiled build
runs, `scripts/compile-spec`) build, compare and hash as the dataclass's generated ones
would; and on the compiled build the classes are native, with the same behaviour."""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from model_checks.kernel.compiled_build import status
from spec import lru, state
from spec.values import quick_init

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILD = ROOT / "build" / "mypyc"

QUICK = (state.Fault, state.ClientItem, state.WireItem, state.Message, state.Reply,
         state.P0Work, state.Request, state.Processing, state.Served, state.Delivery,
         state.State, lru.Entry, lru.Ghost)


def is_quick(cls: type) -> bool:
    """True when `cls.__init__` is the one `quick_init` made (it names the slot setters)."""
    return "_set0" in cls.__init__.__code__.co_names


# The optional fields' types by name: the compiled build's annotations say `type` for them.
OPTIONAL = {"outcome": "Outcome", "work": "P0Work", "last_delivery": "Delivery",
            "fault": "Fault", "tag": "int", "data": "int"}


def sample(field: dataclasses.Field[object], number: int) -> object:
    """A value of `field`'s type (a string, or on the compiled build the type), distinct for
    each `number` (bools but alternate): a compiled class checks its arguments' types."""
    annotation = field.type
    named = annotation.__name__ if isinstance(annotation, type) else str(annotation)
    kind = named.split(" | ")[0].split("[")[0].rsplit(".", 1)[-1]
    kind = OPTIONAL.get(field.name, kind)
    values: dict[str, object] = {
        "str": f"v{number}", "int": number, "bool": number % 2 == 0, "tuple": (number,),
        "Lru": (number,), "frozenset": frozenset({number}),
        "Stage": list(state.Stage)[number % len(state.Stage)],
        "Outcome": list(state.Outcome)[number % len(state.Outcome)],
        "FaultKind": list(state.FaultKind)[number % len(state.FaultKind)],
        "Message": state.Message(number, 0, ()),
        "P0Work": state.P0Work(frozenset(), (), (number,)),
        "Delivery": state.Delivery(state.Message(number, 0, ()), (), ())}
    if kind == "Fault":
        return state.Fault(state.FaultKind.HANG, f"{number}")
    return values[kind]


def markers(cls: type, start: int = 0) -> list[object]:
    """A distinct value per field of `cls`; with an odd start, not a multiple of an enum's
    size, far past 0, each differs from the one of start 0."""
    return [sample(f, start + number)
            for number, f in enumerate(dataclasses.fields(cls))]


def constructor_defects(cls: type) -> list[str]:
    """How `cls(...)` differs from its dataclass constructor: the signature (names, order,
    defaults), where each argument lands, positionally and by keyword, what an omitted
    default gives, and that the value stays frozen."""
    fields = dataclasses.fields(cls)
    found = []
    expected = [(f.name, inspect.Parameter.empty if f.default is dataclasses.MISSING
                 else f.default) for f in fields]
    try:
        actual = [(p.name, p.default) for p in inspect.signature(cls).parameters.values()]
    except ValueError:  # a compiled class has none: the calls below pin names, order, defaults
        actual = expected
    if actual != expected:
        found.append(f"signature {actual}, expected {expected}")
    given = markers(cls)  # a distinct value per field: where did each land?
    for value in (cls(*given), cls(**{f.name: m for f, m in zip(fields, given, strict=True)})):
        landed = [getattr(value, f.name) for f in fields]
        if any(a is not m for a, m in zip(landed, given, strict=True)):
            found.append(f"arguments land in the wrong fields: {landed}")
    required = [m for f, m in zip(fields, given, strict=True) if f.default is dataclasses.MISSING]
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


def value_defects(cls: type) -> list[str]:
    """How `cls`'s equality and hash differ from the dataclass's generated ones: equal when
    every field is, unequal when any one differs or the other value is of another type, and
    the hash of the tuple of the fields."""
    fields = dataclasses.fields(cls)
    given, others = markers(cls), markers(cls, 1001)
    value, again = cls(*given), cls(*given)
    found = []
    if not (value == again and hash(value) == hash(again) == hash(tuple(given))):
        found.append("equal fields give unequal values or another hash")
    for number, f in enumerate(fields):
        other = list(given)
        other[number] = others[number]
        if value == cls(*other):
            found.append(f"values that differ in {f.name} are equal")
    if value.__eq__(tuple(given)) is not NotImplemented:
        found.append("compares with a value of another type")
    return found


@pytest.mark.parametrize("cls", QUICK, ids=lambda c: c.__name__)
def test_the_quick_constructor_builds_the_dataclass_value(cls: type) -> None:
    assert is_quick(cls), f"{cls.__name__} keeps the dataclass constructor"
    assert constructor_defects(cls) == []


@pytest.mark.parametrize("cls", QUICK, ids=lambda c: c.__name__)
def test_the_own_methods_build_compare_and_hash_as_the_dataclass_would(cls: type) -> None:
    """`__eq__` and `__hash__` written in the class, not generated (mypyc compiles them);
    the class's own `__init__`, which `quick_init` replaces here, is checked on the compiled
    build (`test_the_compiled_build_has_native_value_classes_that_behave_alike`)."""
    own = {name: getattr(cls, name).__code__.co_filename for name in ("__eq__", "__hash__")}
    assert own == dict.fromkeys(own, inspect.getfile(cls))
    assert value_defects(cls) == []


def test_a_hash_or_equality_that_skips_a_field_is_caught() -> None:
    @dataclass(frozen=True, slots=True)
    class Skipping:
        a: int
        b: int

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Skipping) and self.a == other.a

        def __hash__(self) -> int:
            return hash((self.a,))

    defects = value_defects(Skipping)
    assert any("another hash" in d for d in defects)
    assert any("differ in b" in d for d in defects)
    assert any("another type" in d for d in defects)


# Run on the compiled build in a fresh interpreter, from a folder that holds no package, so
# that PYTHONPATH alone decides which spec is imported; prints, as JSON, each class's defects.
ON_BUILD = """
import json, sys
sys.path.append(sys.argv[1])
import spec
from test_spec_values import QUICK, constructor_defects, value_defects
found = {"compiled": spec.__file__.endswith((".so", ".pyd"))}
for cls in QUICK:
    descriptors = {type(cls.__dict__[name]).__name__ for name in cls.__dataclass_fields__}
    native = [] if descriptors == {"getset_descriptor"} else [f"not native: {descriptors}"]
    found[cls.__name__] = native + constructor_defects(cls) + value_defects(cls)
print(json.dumps(found))
"""


def test_the_compiled_build_has_native_value_classes_that_behave_alike(tmp_path: Path) -> None:
    if not (BUILD / "SOURCES").exists():
        pytest.skip("no compiled build of spec/: run `bash scripts/compile-spec` (optional; "
                    "CI's .ci/run builds it)")
    found = status(BUILD)
    assert found.fresh, found.why
    env = dict(os.environ, PYTHONPATH=os.pathsep.join((str(BUILD), str(ROOT))))
    done = subprocess.run([sys.executable, "-c", ON_BUILD, str(HERE)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == {"compiled": True} | {cls.__name__: [] for cls in QUICK}


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
