"""A faster constructor for the frozen dataclasses the steps build (`quick_init`).

A frozen dataclass's generated `__init__` sets each field with `object.__setattr__(self,
name, value)`, since the class's own `__setattr__` refuses; a step builds several states,
requests and entries, so that call per field was a large part of a step's cost. A slotted
class stores each field in a slot whose descriptor sets it directly: `quick_init` gives the
class an `__init__` that calls those descriptors, with the dataclass's very signature (the
same parameters in the same order, the same defaults), so that `Class(...)` builds the same
value, and the class stays frozen (assignment still raises `FrozenInstanceError`).
`tests/spec/test_spec_values.py` compares the constructor of every class given to it with the
dataclass's own.

Where the class is not a slotted dataclass with plain fields (a field with a default factory,
not in `__init__` or keyword-only; or a native class compiled by mypyc, whose attributes are
no slots), the class is returned unchanged: its own `__init__` stays.

The compiled build (`scripts/compile-spec`): mypyc compiles a class decorated by anything
but `dataclass` as a non-native one, whose every attribute read, construction, comparison and
hash runs as plain Python; so the state's classes are not decorated with `quick_init` but
passed to it after their definition, and stay native. There, `quick_init` leaves them as
they are, and what the dataclass would generate interpreted, each class writes itself, for
mypyc to compile: `__init__` (`object.__setattr__(self, "name", value)`, which mypyc compiles
to a direct store on a native class), `__eq__` and `__hash__` (the fields' tuple, as the
dataclass's), and `__reduce__` (`init_values`, below). `tests/spec/test_spec_values.py`
checks them on both builds.
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
