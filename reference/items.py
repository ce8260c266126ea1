"""Processed items: a payload of real torch tensors plus the placeholders it fills.

A *payload* is a mapping of names to tensors, possibly nested (``TensorTree``).

Memory, decided once (both sides apply the same rules, so their charges stay equal, D9):

- **What is charged is what is kept alive.** A tensor is kept as given only if it owns its
  storage exactly (offset 0, storage bytes == its ``nbytes``). Any other tensor (a slice of a
  larger tensor, an ``expand``ed one, a tensor that shrank with ``resize_``) is replaced by a
  compact copy (``clone``), which owns exactly its ``nbytes``. So a 10-byte view of a 5 MB
  tensor is charged 10 bytes and keeps 10 bytes alive, and an expanded tensor is charged the
  bytes it will take on the wire and in P1, where it arrives materialised. Copying, not
  charging the storage, keeps P0's and P1's charges equal whatever the serialisation does.
- **Detached.** A tensor that requires grad is stored ``detach()``ed: the cache never keeps an
  autograd graph alive.
- **Rejected** (``UnsupportedTensorError``, nothing changed): tensors without data (``meta``)
  and layouts other than dense strided (sparse COO/CSR/..., nested, quantized, mkldnn).
- **A minimum charge per entry** (``MIN_ENTRY_BYTES``, 1 byte): an entry's charge is
  ``max(sum of nbytes, MIN_ENTRY_BYTES)``, so a cache of budget B holds at most B entries,
  zero-byte ones included. Bookkeeping (the key, the entry objects, the tensor objects) is
  bounded apart from the bytes, in nodes (``entry_nodes``; ``reference.lru.NODE_BYTES``):
  the bytes stay the protocol's (what the spec counts), and each side keeps alive at most
  its budget in tensors plus at most its budget in bookkeeping.

The charge is computed once, when a ``ProcessedItem`` is built or when the receiver caches a
payload. An in-place edit of a tensor afterwards is not re-measured; the receiver detects it
(``ReceiverCache``: version stamps) and never serves an edited tensor.

*Placeholders* say which token positions of the prompt the item fills; they depend on the
content, so a tensor must only ever be paired with the placeholders of the same processing
(property S1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeAlias, Union

import torch

from reference.errors import (
    BadInputTypeError,
    BadInputValueError,
    CacheError,
    InvalidPayloadError,
    MissingMediaError,
    MultiModalCacheMissError,
    ProcessorError,
    UnsupportedTensorError,
    describe,
)

__all__ = [
    "MAX_PAYLOAD_DEPTH",
    "MIN_ENTRY_BYTES",
    "Placeholders",
    "ProcessedItem",
    "Processor",
    "TensorTree",
    "compact_tree",
    "detach_tree",
    "entry_charge",
    "entry_nodes",
    "freeze_payload",
    "prepare_payload",
    "run_processor",
    "snapshot_payload",
    "tensor_leaves",
    "tree_nbytes",
]

MIN_ENTRY_BYTES = 1
"""The least an entry is charged, so that a budget of B bytes bounds the number of entries
by B. One byte: the spec's sizes are >= 1, so the charge of every item it models is its size."""

TensorTree: TypeAlias = Mapping[str, Union[torch.Tensor, "TensorTree"]]


MAX_PAYLOAD_DEPTH = 32
"""How deeply payload mappings may nest. Deeper (or a mapping that contains itself) is
rejected with ``InvalidPayloadError`` instead of exhausting Python's recursion limit."""


def tree_nbytes(tree: object, path: str = "") -> int:
    """Sum of the ``nbytes`` of every tensor in ``tree``; validates the whole tree.

    Raises ``InvalidPayloadError`` naming the first offending path: a root that is not a
    mapping, a key that is not a str, a leaf that is neither a tensor nor a mapping, mappings
    nested more than ``MAX_PAYLOAD_DEPTH`` deep (a cycle included), a mapping whose
    ``items()`` raises or names a key twice; ``UnsupportedTensorError`` for a meta tensor or
    a layout other than dense strided.
    """
    if type(path) is not str:
        raise BadInputTypeError(f"got path {describe(path)}, expected a str")
    return snapshot_payload(tree, path)[1]


def snapshot_payload(tree: object, path: str = "") -> tuple[dict[str, Any], int]:
    """Validate ``tree`` and copy its mapping structure in one walk that reads each
    mapping's ``items()`` exactly once: returns the copy (a new dict at every level, keys as
    plain str, the given tensors) and the sum of its tensors' ``nbytes``. What is charged is
    therefore what the copy holds, even for a mapping whose ``items()`` differ per call.
    Raises as ``tree_nbytes`` does."""
    return _walk(tree, path, 0)


def _where(path: str) -> str:
    return f"payload entry {path[:60]!r}" if path else "payload"


def _walk(tree: object, path: str, depth: int) -> tuple[dict[str, Any], int]:
    if type(tree) is not dict and not isinstance(tree, Mapping):
        raise InvalidPayloadError(
            f"got {_where(path)} {describe(tree)}, expected a mapping of names to torch tensors"
        )
    copy: dict[str, Any] = {}
    total = 0
    read = 0
    try:
        for key, value in tree.items():
            read += 1
            if type(value) is torch.Tensor and type(key) is str and _supported(value):
                copy[key] = value  # the common case, first
                total += value.nbytes
            else:
                name, kept, nbytes = _entry(key, value, path, depth)
                copy[name] = kept
                total += nbytes
    except CacheError:
        raise
    except Exception as error:  # a Mapping whose items() fails: user code, rejected
        raise InvalidPayloadError(
            f"got {_where(path)} whose items() raised {type(error).__name__}, expected a "
            "mapping of names to torch tensors"
        ) from None
    if len(copy) != read:
        raise InvalidPayloadError(
            f"got {_where(path)} naming a key twice, expected each name once"
        )
    return copy, total


def _entry(key: object, value: object, path: str, depth: int) -> tuple[str, Any, int]:
    """One entry that is not a str-keyed tensor: a nested mapping, or an error; returns its
    key as a plain str, its copy and its bytes."""
    if not isinstance(key, str):
        raise InvalidPayloadError(
            f"got payload key {describe(key)} under {path[:60] or 'the root'!r}, expected a str"
        )
    name = str.__str__(key)  # a plain str, whatever the subclass overrides
    child = f"{path}.{name}" if path else name
    if isinstance(value, torch.Tensor):
        _check_supported(value, child)
        return name, value, value.nbytes
    if isinstance(value, Mapping):
        if depth >= MAX_PAYLOAD_DEPTH:
            raise InvalidPayloadError(
                f"got payload mappings nested deeper than {MAX_PAYLOAD_DEPTH} levels at "
                f"{child[:60]!r}, expected at most {MAX_PAYLOAD_DEPTH} (a mapping that "
                "contains itself is this too)"
            )
        kept, nbytes = _walk(value, child, depth + 1)
        return name, kept, nbytes
    raise InvalidPayloadError(
        f"got payload leaf {child[:60]!r} = {describe(value)}, "
        "expected a torch.Tensor or a nested mapping of them"
    )


def _supported(tensor: torch.Tensor) -> bool:
    """A dense strided tensor with data (not meta, sparse, nested, quantized, mkldnn)."""
    return (tensor.layout is torch.strided and not tensor.is_meta and not tensor.is_nested
            and not tensor.is_quantized)


def _check_supported(tensor: torch.Tensor, path: str) -> None:
    if _supported(tensor):
        return
    kind = "meta" if tensor.is_meta else "nested" if tensor.is_nested else (
        "quantized" if tensor.is_quantized else str(tensor.layout).removeprefix("torch."))
    raise UnsupportedTensorError(
        f"got payload leaf {path[:60]!r} = a {kind} tensor, "
        "expected a dense strided tensor with data (torch.strided, not meta)"
    )


def entry_nodes(tree: TensorTree) -> int:
    """The nodes an entry of this (valid) payload takes (``reference.lru.NODE_BYTES``): one
    for the entry, one per tensor, one per nested mapping. Both sides count alike."""
    nodes = 1
    for value in tree.values():
        nodes += 1 if isinstance(value, torch.Tensor) else entry_nodes(value)
    return nodes


def entry_charge(nbytes: int) -> int:
    """What the caches charge an entry whose tensors take ``nbytes``: at least 1 byte."""
    return nbytes if nbytes >= MIN_ENTRY_BYTES else MIN_ENTRY_BYTES


def _owns_exactly(tensor: torch.Tensor) -> bool:
    """True if the tensor keeps alive exactly its own bytes (no larger or shared storage)."""
    return (tensor.storage_offset() == 0
            and tensor.untyped_storage().nbytes() == tensor.nbytes)


def _compact(tensor: torch.Tensor, path: str) -> torch.Tensor:
    if tensor.requires_grad:
        tensor = tensor.detach()
    if not _owns_exactly(tensor):
        try:
            tensor = tensor.clone(memory_format=torch.contiguous_format)
        except (RuntimeError, MemoryError):  # the allocator refused: nothing kept
            raise InvalidPayloadError(
                f"got payload leaf {path[:60]!r} of {tensor.nbytes} bytes that cannot be "
                "materialised (a view or expand of a smaller storage), expected a tensor "
                "the caches can copy"
            ) from None
    return tensor


def compact_tree(tree: dict[str, Any], path: str = "") -> None:
    """Make every tensor of ``tree`` (a copy ``snapshot_payload`` made, changed in place)
    detached and owning exactly its bytes (see the module). A tensor that cannot be
    materialised raises ``InvalidPayloadError``, leaving the caller's tensors untouched."""
    for key, value in tree.items():
        if type(value) is dict:
            compact_tree(value, f"{path}.{key}" if path else key)
        elif value.requires_grad or not _owns_exactly(value):
            tree[key] = _compact(value, f"{path}.{key}" if path else key)


def detach_tree(tree: dict[str, Any]) -> None:
    """Detach every tensor of ``tree`` (a ``snapshot_payload`` copy, in place), copying
    none: what a payload that will not be cached needs (it is used, never kept)."""
    for key, value in tree.items():
        if type(value) is dict:
            detach_tree(value)
        elif value.requires_grad:
            tree[key] = value.detach()


def prepare_payload(tree: object, limit: int) -> tuple[TensorTree, int]:
    """What the receiver keeps and serves for a received payload, made before it changes
    anything: the payload validated and copied once (``snapshot_payload``), compacted if its
    charge fits ``limit`` (it may be cached) or only detached if not (used for its request,
    never cached: no copy of an over-budget tensor), then frozen; and its charge."""
    copy, nbytes = snapshot_payload(tree)
    charge = entry_charge(nbytes)
    if charge <= limit:
        compact_tree(copy)
    else:
        detach_tree(copy)
    return freeze_payload(copy), charge


def freeze_payload(tree: TensorTree) -> TensorTree:
    """A read-only copy of the mapping structure (``MappingProxyType`` at every level); the
    tensors are the same objects. What the receiver caches and serves: a consumer cannot add,
    drop or replace a cached entry's tensors, and the sender's dict cannot change it later."""
    return MappingProxyType({
        key: value if isinstance(value, torch.Tensor) else freeze_payload(value)
        for key, value in tree.items()
    })


def tensor_leaves(tree: TensorTree) -> tuple[torch.Tensor, ...]:
    """Every tensor of a (valid) tree, depth first, in mapping order."""
    leaves: list[torch.Tensor] = []
    for value in tree.values():
        if isinstance(value, torch.Tensor):
            leaves.append(value)
        else:
            leaves.extend(tensor_leaves(value))
    return tuple(leaves)


def _check_count(name: str, value: object) -> None:
    if type(value) is not int:  # a plain int: not a bool, a subclass or a 0-d tensor
        raise BadInputTypeError(f"got {name} {describe(value)}, expected an int")
    if value < 0:
        raise BadInputValueError(f"got {name} {describe(value)}, expected an int >= 0")


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
    """What the processor makes of one multimodal item: payload, placeholders, charge.

    The payload is validated, then stored as a copy of its mapping structure, every tensor
    compact and detached (``snapshot_payload``, ``compact_tree``: the tensors themselves are
    not copied unless compaction needs it), so that a later change to the mapping given
    changes nothing the caches record or send. ``nbytes`` is the entry's charge,
    ``entry_charge`` of the tensors' bytes, computed once here and never recomputed.
    Compared by identity: tensors have no boolean equality.

    ``token_key``, where the item carries its token count: the payload entry (top level)
    whose first dimension counts the item's tokens (for example precomputed embeddings of
    shape ``(tokens, hidden)``). When given, ``placeholders.length`` must equal it, or the
    item is rejected (``BadInputValueError``): placeholders that do not describe the tensor
    would pair them wrongly on P1, which cannot tell. None (the default): nothing to check.
    """

    payload: TensorTree
    placeholders: Placeholders
    token_key: str | None = field(default=None, kw_only=True)
    nbytes: int = field(init=False)
    nodes: int = field(init=False)

    def __post_init__(self) -> None:
        if type(self.placeholders) is not Placeholders:
            raise BadInputTypeError(
                f"got placeholders {describe(self.placeholders)}, expected Placeholders"
            )
        payload, nbytes = snapshot_payload(self.payload)  # items() read once
        if self.token_key is not None:
            _check_tokens(payload, self.token_key, self.placeholders)
        compact_tree(payload)
        object.__setattr__(self, "payload", payload)
        object.__setattr__(self, "nbytes", entry_charge(nbytes))
        object.__setattr__(self, "nodes", entry_nodes(payload))


def _check_tokens(payload: TensorTree, key: object, placeholders: Placeholders) -> None:
    """``payload[key]`` is a tensor of at least one dimension whose first dimension is
    ``placeholders.length`` (``ProcessedItem.token_key``)."""
    if type(key) is not str:
        raise BadInputTypeError(f"got token_key {describe(key)}, expected a str or None")
    tensor = payload.get(key)
    if not isinstance(tensor, torch.Tensor) or tensor.dim() == 0:
        raise BadInputValueError(
            f"got token_key {key[:60]!r}, expected the name of a payload tensor of at least "
            "one dimension (its first dimension counts the tokens)"
        )
    if tensor.shape[0] != placeholders.length:
        raise BadInputValueError(
            f"got placeholders of length {placeholders.length} for {tensor.shape[0]} tokens in "
            f"payload[{key[:60]!r}], expected the same count"
        )


Processor: TypeAlias = Callable[[object], ProcessedItem]
"""Turns an item's raw content into a ``ProcessedItem`` (the expensive step on P0)."""


def run_processor(processor: Processor, content: object) -> ProcessedItem:
    """Call ``processor`` and check that it returned a ``ProcessedItem``.

    A processor's own ``MultiModalCacheMissError`` or ``MissingMediaError`` (errors the
    retry helper resends on) becomes a ``ProcessorError``: it is not the engine's miss or
    the client's missing media, and resending cannot help."""
    try:
        item = processor(content)
    except (MultiModalCacheMissError, MissingMediaError) as error:
        raise ProcessorError(
            f"got {type(error).__name__} from the processor, expected a ProcessedItem (a "
            "processor's own miss is not the engine's; not retried)"
        ) from error
    if type(item) is not ProcessedItem:
        raise BadInputTypeError(f"got {describe(item)} from the processor, expected ProcessedItem")
    return item
