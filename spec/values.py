"""A faster constructor for the frozen dataclasses the steps build (`quick_init`).

A frozen dataclass's generated `__init__` sets each field with `object.__setattr__(self,
name, value)`, since the class's own `__setattr__` refuses; a step builds several states,
requests and entries, so that call per field was a large part of a step's cost. A slotted
class stores each field in a slot whose descriptor sets it directly: `quick_init` gives the
class an `__init__` that calls those descriptors, with the dataclass's very signature (the
same parameters in the same order, the same defaults), so that `Class(...)` builds the same
value, and the class stays frozen (assignment still raises `FrozenInstanceError`).
`tests/spec/test_spec_values.py` compares every decorated class's constructor with the
dataclass's own.

Where the class is not a slotted dataclass with plain fields (a field with a default factory,
not in `__init__` or keyword-only; or a native class compiled by mypyc, whose attributes are
no slots), the class is returned unchanged: its dataclass `__init__` stays. (mypyc compiles a
class this decorator decorates as a non-native one, slotted, so the compiled build
(`scripts/compile-spec`) has the quick constructors too.)
"""

from __future__ import annotations

import dataclasses
import types
from typing import TypeVar

_T = TypeVar("_T")


def quick_init(cls: type[_T]) -> type[_T]:
    """`cls` (a frozen, slotted dataclass) with an `__init__` that stores each argument through
    its slot's descriptor; see the module docstring for when it is left as it is."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]  # cls is a dataclass
    plain = all(
        f.init and not f.kw_only and f.default_factory is dataclasses.MISSING
        and isinstance(cls.__dict__.get(f.name), types.MemberDescriptorType)
        for f in fields
    )
    if not plain:
        return cls
    namespace: dict[str, object] = {}
    parameters, body = [], []
    for number, f in enumerate(fields):
        namespace[f"_set{number}"] = cls.__dict__[f.name].__set__
        if f.default is dataclasses.MISSING:
            parameters.append(f.name)
        else:
            namespace[f"_default{number}"] = f.default
            parameters.append(f"{f.name}=_default{number}")
        body.append(f"    _set{number}(self, {f.name})\n")
    source = f"def __init__(self, {', '.join(parameters)}):\n{''.join(body) or '    pass'}\n"
    exec(source, namespace)  # the dataclasses module builds its __init__ the same way
    init = namespace["__init__"]
    assert isinstance(init, types.FunctionType)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)  # what introspection reads
    setattr(cls, "__init__", init)  # noqa: B010  (mypy refuses assigning to a method)
    return cls


def init_values(value: object) -> tuple[object, ...]:
    """The values of `value`'s `__init__` fields, in order: calling its class on them rebuilds
    an equal value. The `__reduce__` of the frozen dataclasses that cross processes by pickle
    returns their class and these: mypyc's own unpickling of a compiled (native) frozen
    dataclass sets each field on the object, which its frozen `__setattr__` refuses
    (`tests/spec/test_spec_pickle.py` round-trips a sample of every such class)."""
    return tuple(getattr(value, f.name) for f in dataclasses.fields(value)  # type: ignore[arg-type]
                 if f.init)
