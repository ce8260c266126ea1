"""Processed items: a payload of real torch tensors plus the placeholders it fills.

A *payload* is a mapping of names to tensors, possibly nested (``TensorTree``). Its size is
the sum of its tensors' ``nbytes`` (``numel * element_size``: a view counts its own elements,
not its storage), computed once, when a ``ProcessedItem`` is built or when the receiver
caches a payload. An in-place edit of a tensor afterwards is not re-measured.

*Placeholders* say which token positions of the prompt the item fills; they depend on the
content, so a tensor must only ever be paired with the placeholders of the same processing
(property S1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias, Union

import torch

from reference.errors import (
    BadInputTypeError,
    BadInputValueError,
    InvalidPayloadError,
    describe,
)

__all__ = [
    "Placeholders",
    "ProcessedItem",
    "Processor",
    "TensorTree",
    "run_processor",
    "tree_nbytes",
]

TensorTree: TypeAlias = Mapping[str, Union[torch.Tensor, "TensorTree"]]


def tree_nbytes(tree: object, path: str = "") -> int:
    """Sum of the ``nbytes`` of every tensor in ``tree``; validates the whole tree.

    Raises ``InvalidPayloadError`` naming the first offending path: a root that is not a
    mapping, a key that is not a str, a leaf that is neither a tensor nor a mapping.
    """
    if type(tree) is not dict and not isinstance(tree, Mapping):
        where = f"payload entry {path!r}" if path else "payload"
        raise InvalidPayloadError(
            f"got {where} {describe(tree)}, expected a mapping of names to torch tensors"
        )
    total = 0
    for key, value in tree.items():
        if isinstance(value, torch.Tensor) and type(key) is str:  # the common case, first
            total += value.nbytes
        else:
            total += _entry_nbytes(key, value, path)
    return total


def _entry_nbytes(key: object, value: object, path: str) -> int:
    """Size of one entry that is not a str-keyed tensor: a nested mapping, or an error."""
    if not isinstance(key, str):
        raise InvalidPayloadError(
            f"got payload key {describe(key)} under {path or 'the root'!r}, expected a str"
        )
    child = f"{path}.{key}" if path else key
    if isinstance(value, torch.Tensor):
        return value.nbytes
    if isinstance(value, Mapping):
        return tree_nbytes(value, child)
    raise InvalidPayloadError(
        f"got payload leaf {child!r} = {describe(value)}, "
        "expected a torch.Tensor or a nested mapping of them"
    )


def _check_count(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInputTypeError(f"got {name} {describe(value)}, expected an int")
    if value < 0:
        raise BadInputValueError(f"got {name} {value}, expected an int >= 0")


@dataclass(frozen=True, slots=True)
class Placeholders:
    """The token positions an item fills: ``length`` tokens starting at ``offset``."""

    offset: int
    length: int

    def __post_init__(self) -> None:
        _check_count("placeholder offset", self.offset)
        _check_count("placeholder length", self.length)


@dataclass(frozen=True, slots=True, eq=False)
class ProcessedItem:
    """What the processor makes of one multimodal item: payload, placeholders, size.

    ``nbytes`` is computed once here from the payload (which is validated at the same time)
    and never recomputed. Compared by identity: tensors have no boolean equality.
    """

    payload: TensorTree
    placeholders: Placeholders
    nbytes: int = field(init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.placeholders, Placeholders):
            raise BadInputTypeError(
                f"got placeholders {describe(self.placeholders)}, expected Placeholders"
            )
        object.__setattr__(self, "nbytes", tree_nbytes(self.payload))


Processor: TypeAlias = Callable[[object], ProcessedItem]
"""Turns an item's raw content into a ``ProcessedItem`` (the expensive step on P0)."""


def run_processor(processor: Processor, content: object) -> ProcessedItem:
    """Call ``processor`` and check that it returned a ``ProcessedItem``."""
    item = processor(content)
    if not isinstance(item, ProcessedItem):
        raise BadInputTypeError(f"got {describe(item)} from the processor, expected ProcessedItem")
    return item
