"""States on the wire of the owned-partition search, for any design: a state as a code of
stable element fingerprints, the elements themselves sent once per channel.

A design whose states are frozen dataclasses of the spec (`identity_fields`) has a state's
code be the tuple of the fields its equality reads (in field order), each field a tuple of the
stable fingerprints (`fingerprint.stable_fingerprint`) of its members if the field is a
tuple, else the fingerprint of the field's value; any other design's state is one element,
its code the 1-tuple of its fingerprint. Equal states have equal codes in every process; two
states have equal codes only if their elements' 64-bit fingerprints collide, among the few
thousand distinct elements of a search (requests, messages, caches), not among its states.
The code is the state's name across processes: the owner's visited table is keyed by it, its
`hash` (of a tuple of ints: the same in every process of one Python, which the search checks
when it starts, `PROBE`) picks its partition, and only codes cross between processes, with
each element a receiver has not had from that sender yet. A search meets many states made
of few elements (the LRU design's V2 under D7 with 3 requests: 27,877 states, under 8,000
distinct field values), so a code is a dozen integers and rebuilding a state is one
constructor call.

Fingerprints are memoised per field: a bool field and an int field never share an entry
(`True == 1`, and their texts differ).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from functools import partial
from typing import Any

from model_checks.explore.distributed_common import field_values, values_of
from model_checks.explore.fingerprint import stable_fingerprint
from model_checks.explore.moves import State

Code = tuple[Any, ...]
"""Per field: an int (a fingerprint), or a tuple of ints (a tuple field's members')."""

PROBE: Code = ((1, 2), 3, (), (-4,))
"""`hash(PROBE)` is compared between the client and every worker: codes choose partitions by
their `hash`, which must be the same function everywhere."""


class Codec:
    """One process's element tables for the states of class `kind` (a design's): fingerprint
    of every element met (per field) and element of every fingerprint known (met or
    received)."""

    def __init__(self, kind: type) -> None:
        names = identity_fields(kind)
        self.values: Callable[[State], tuple[Any, ...]] = _whole
        self.make: Callable[..., State] = _whole_of
        if names is not None:
            self.values = values_of(names)
            self.make = kind if len(names) == len(fields(kind)) else partial(
                _built, kind, names)
        self.memo: list[dict[Any, int]] = [{} for _ in range(len(names or "s"))]
        self.element: dict[int, Any] = {}

    def encode(self, state: State) -> Code:
        """The code of `state`; its elements enter the tables."""
        out: list[Any] = []
        for memo, value in zip(self.memo, self.values(state), strict=True):
            if type(value) is tuple:
                members = []
                for member in value:
                    fingerprint = memo.get(member)
                    if fingerprint is None:
                        fingerprint = memo[member] = self._new(member)
                    members.append(fingerprint)
                out.append(tuple(members))
            else:
                fingerprint = memo.get(value)
                if fingerprint is None:
                    fingerprint = memo[value] = self._new(value)
                out.append(fingerprint)
        return tuple(out)

    def _new(self, value: Any) -> int:
        fingerprint = stable_fingerprint(value)
        self.element.setdefault(fingerprint, value)
        return fingerprint

    def decode(self, code: Code) -> State:
        """The state of `code` (every element known here)."""
        element = self.element
        values: list[Any] = [tuple([element[f] for f in field]) if type(field) is tuple
                             else element[field] for field in code]
        return self.make(*values)

    def learn(self, elements: dict[int, Any]) -> None:
        """Elements received from another process."""
        for fingerprint, value in elements.items():
            self.element.setdefault(fingerprint, value)


class Channel:
    """What one sender has sent one receiver: the elements the receiver has from it."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec
        self.sent: set[int] = set()

    def elements(self, codes: list[Code]) -> dict[int, Any]:
        """The elements of `codes` this channel has not carried yet (now marked carried)."""
        sent, element = self.sent, self.codec.element
        new: dict[int, Any] = {}
        for code in codes:
            for field in code:
                for fingerprint in field if type(field) is tuple else (field,):
                    if fingerprint not in sent:
                        sent.add(fingerprint)
                        new[fingerprint] = element[fingerprint]
        return new


def identity_fields(kind: type) -> tuple[str, ...] | None:
    """The fields a state of `kind` is equal by, in order, where `kind` is a frozen dataclass
    of the spec its field values rebuild (`distributed_common.field_values`); None: a state
    crosses whole. A field outside the state's equality (what only a design's properties
    read, such as what the step served) does not cross: a rebuilt state has its default."""
    if field_values(kind) is None:
        return None
    return tuple(f.name for f in fields(kind) if f.compare)


def _built(kind: type, names: tuple[str, ...], *values: Any) -> State:
    return kind(**dict(zip(names, values, strict=True)))


def _whole(state: State) -> tuple[State]:
    """A state that is not a dataclass of the spec: one element."""
    return (state,)


def _whole_of(state: State) -> State:
    return state
