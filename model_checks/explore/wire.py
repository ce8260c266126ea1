"""States on the wire of the owned-partition search: a state as a code of stable element
fingerprints, the elements themselves sent once per channel.

A state's code is the tuple of its fields (in field order), each field a tuple of the stable
fingerprints (`fingerprint.stable_fingerprint`) of its members if the field is a tuple, else
the fingerprint of the field's value. Equal states have equal codes in every process; two
states have equal codes only if their elements' 64-bit fingerprints collide, among the few
thousand distinct elements of a search (requests, messages, caches), not among its states.
The code is the state's name across processes: the owner's visited table is keyed by it, its
`hash` (of a tuple of ints: the same in every process of one Python, which the search checks
when it starts, `PROBE`) picks its partition, and only codes cross between processes, with
each element a receiver has not had from that sender yet. A search meets many states made
of few elements (V2 under D7 with 3 requests: 27,877 states, under 8,000 distinct field
values), so a code is a dozen integers and rebuilding a state is one constructor call.

Fingerprints are memoised per field: a bool field and an int field never share an entry
(`True == 1`, and their texts differ).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from model_checks.explore.distributed_common import field_values
from model_checks.explore.fingerprint import stable_fingerprint
from spec import State

Code = tuple[Any, ...]
"""Per field: an int (a fingerprint), or a tuple of ints (a tuple field's members')."""

PROBE: Code = ((1, 2), 3, (), (-4,))
"""`hash(PROBE)` is compared between the client and every worker: codes choose partitions by
their `hash`, which must be the same function everywhere."""


def _values() -> Callable[[State], tuple[Any, ...]]:
    values = field_values(State)
    assert values is not None, "State is a frozen dataclass of the spec"
    return values


class Codec:
    """One process's element tables: fingerprint of every element met (per field) and
    element of every fingerprint known (met or received)."""

    def __init__(self) -> None:
        self.values = _values()
        self.width = len(self.values(_blank()))
        self.memo: list[dict[Any, int]] = [{} for _ in range(self.width)]
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
        fields: list[Any] = [tuple([element[f] for f in field]) if type(field) is tuple
                             else element[field] for field in code]
        return State(*fields)

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


def _blank() -> State:
    return State(shadows=())
