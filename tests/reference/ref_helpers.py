"""Shared helpers for the reference tests: small items, processors, cache snapshots.

Each processing gets a serial number written both into its payload (``serial`` tensor) and into
its placeholders (``offset``), so that S1 ("tensor and placeholders from one processing") can be
checked on anything the engine hands out: ``payload["serial"] == placeholders.offset``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch

from reference import (
    Engine,
    FrontEnd,
    ModelInput,
    Placeholders,
    ProcessedItem,
    ReceiverCache,
    Request,
    RequestItem,
    SenderCache,
    TensorTree,
)

ITEM_BYTES = 16  # serial (8 bytes) + content (8 bytes): see SerialProcessor


def make_payload(n_tensors: int = 1, numel: int = 4, fill: float = 0.0) -> dict[str, torch.Tensor]:
    """``n_tensors`` float32 tensors of ``numel`` elements each (4 * numel bytes each)."""
    return {f"t{i}": torch.full((numel,), fill + i, dtype=torch.float32) for i in range(n_tensors)}


def make_item(nbytes: int = 16, serial: int = 0, length: int = 1) -> ProcessedItem:
    """An item of exactly ``nbytes`` bytes (a multiple of 8) tagged with ``serial``."""
    assert nbytes % 8 == 0 and nbytes >= 8
    payload = {
        "serial": torch.tensor([serial], dtype=torch.int64),
        "fill": torch.zeros((nbytes - 8) // 8, dtype=torch.int64),
    }
    return ProcessedItem(payload, Placeholders(offset=serial, length=length))


@dataclass
class SerialProcessor:
    """A processor whose outputs are numbered; content is an int (or a (int, nbytes) pair).

    The item's size is 16 bytes unless the content says otherwise; ``calls`` counts the runs.
    """

    serials: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    calls: list[object] = field(default_factory=list)

    def __call__(self, content: object) -> ProcessedItem:
        self.calls.append(content)
        value, nbytes = content if isinstance(content, tuple) else (content, ITEM_BYTES)
        assert isinstance(value, int) and isinstance(nbytes, int)
        serial = next(self.serials)
        payload: TensorTree = {
            "serial": torch.tensor([serial], dtype=torch.int64),
            "content": torch.full(((nbytes - 8) // 8,), value, dtype=torch.int64),
        }
        return ProcessedItem(payload, Placeholders(offset=serial, length=1 + value % 7))


def consistent(model_input: ModelInput) -> bool:
    """S1 for one handed-out item: tensor and placeholders from the same processing."""
    serial = model_input.payload["serial"]
    assert isinstance(serial, torch.Tensor)
    return int(serial.item()) == model_input.placeholders.offset


def content_of(model_input: ModelInput) -> int:
    content = model_input.payload["content"]
    assert isinstance(content, torch.Tensor)
    return int(content[0].item())


def snapshot(cache: SenderCache | ReceiverCache) -> tuple[object, ...]:
    """Everything observable about a cache, for "unchanged after a rejected call" checks."""
    return (cache.entries(), [(k, id(v)) for k, v in cache.items()], cache.stats())


def snapshot_pair(front_end: FrontEnd, engine: Engine) -> tuple[object, ...]:
    return (snapshot(front_end.sender), snapshot(engine.receiver), front_end.outstanding())


def self_referencing() -> dict[str, object]:
    """A tensor tree that contains itself (a payload no walk may follow forever)."""
    tree: dict[str, object] = {}
    tree["self"] = tree
    return tree


def deep(levels: int) -> dict[str, object]:
    """A one-tensor tree nested `levels` mappings deep."""
    tree: dict[str, object] = {"x": torch.zeros(1)}
    for _ in range(levels):
        tree = {"n": tree}
    return tree


def forced_request(items: object, resend: object = False) -> Request:
    """A `Request` whose fields skipped its construction checks (as ``object.__setattr__``
    can force them on a frozen dataclass): the boundaries must still refuse it."""
    request = object.__new__(Request)
    object.__setattr__(request, "items", items)
    object.__setattr__(request, "resend", resend)
    return request


def forced_item(identity: object, content: object = None) -> RequestItem:
    """A `RequestItem` whose identity skipped its construction check."""
    item = object.__new__(RequestItem)
    object.__setattr__(item, "identity", identity)
    object.__setattr__(item, "content", content)
    return item
