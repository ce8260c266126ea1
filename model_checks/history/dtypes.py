"""Payloads across torch's dtypes and shapes, sized in bytes: the sweep a concurrent run makes
before its schedules.

The harness's own processor (`codec`) makes float32, int16 and uint8 tensors only, so an
implementation that sizes a payload from a dtype table wrong for another dtype passes every
history. `sweep(adapter, variant)` builds fresh sides with a processor of its own
(`DTYPES`, each in `SHAPES`), sends each payload alone through the front end's probe and
update and the engine's receive (one call at a time), and checks, after each request and
after a run of them that overflows the budget:

- each side's view reports the item's size as torch counts it (`Tensor.nbytes` summed);
- what each side holds, counted in true bytes, stays within the budget.

A mismatch is a `SizeMismatch` (the dtype, the shape, the side, what it reported or held);
the sweep's `tried` names the dtypes it sent. It needs the four steps (`probe`, `update`,
`receive`, the views); an adapter whose sides raise or fault in it gets the failure reported
as a mismatch of that dtype.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from model_checks.conform import adapter as api

DTYPES = (torch.int64, torch.complex64, torch.float64, torch.float32, torch.int32,
          torch.bfloat16, torch.float16, torch.int16, torch.bool, torch.uint8, torch.int8)
"""The dtypes a sweep sends (each as one tensor of a payload)."""
SHAPES = ((8,), (2, 4))
"""The shapes each dtype is sent in (8 elements: an int64 payload is 64 bytes)."""
BUDGET = 96
"""The sweep's budget in bytes: one 64-byte payload fits, two do not."""
_STRIDE = 100


@dataclass(frozen=True)
class SizeMismatch:
    """`side` ("fe0", "engine") reported or held the wrong bytes for `dtype` in `shape`."""

    dtype: str
    shape: tuple[int, ...]
    side: str
    detail: str

    def line(self) -> str:
        return f"{self.side}, {self.dtype} {list(self.shape)}: {self.detail}"


@dataclass(frozen=True)
class Sweep:
    """The dtypes sent (`tried`) and the mismatches found."""

    tried: tuple[str, ...]
    mismatches: tuple[SizeMismatch, ...]


def _name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _media(number: int, dtype: int, shape: int) -> torch.Tensor:
    return torch.tensor([number, dtype, shape], dtype=torch.int64)


def process(media: torch.Tensor) -> tuple[dict[str, torch.Tensor], tuple[int, int]]:
    """The sweep's processor: media [number, dtype index, shape index] -> one tensor of that
    dtype and shape (values from the number), placeholders (number, its element count)."""
    number, dtype, shape = (int(v) for v in media.tolist())
    size = SHAPES[shape]
    values = torch.full(size, number % 2 if DTYPES[dtype] is torch.bool else number % 100)
    tensor = values.to(DTYPES[dtype])
    return {"values": tensor}, (number, tensor.numel())


def nbytes(payload: api.Payload) -> int:
    return sum(int(t.nbytes) for t in payload.values())


def sweep(adapter: api.Adapter, variant: str) -> Sweep:
    """Each dtype in each shape through fresh sides of `adapter` in `variant` (module
    docstring)."""
    found: list[SizeMismatch] = []
    for dtype in range(len(DTYPES)):
        for shape in range(len(SHAPES)):
            found.extend(_one(adapter, variant, dtype, shape))
    return Sweep(tuple(_name(d) for d in DTYPES), tuple(found))


def _one(adapter: api.Adapter, variant: str, dtype: int, shape: int) -> list[SizeMismatch]:
    setup = api.Setup(BUDGET, variant, 1, process)
    name, size = _name(DTYPES[dtype]), SHAPES[shape]
    try:
        front_end = api.build_front_end(adapter, setup, 0)
        engine = api.build_engine(adapter.engine, setup)
    except api.AdapterError as error:
        return [SizeMismatch(name, size, "build", str(error))]
    truth: dict[str, int] = {}
    found: list[SizeMismatch] = []
    try:
        for number in range(1, 4):  # three payloads: the third overflows any budget of two
            identity = f"{name}-{number}"
            media = _media(dtype * _STRIDE + number, dtype, shape)
            truth[identity] = nbytes(process(media)[0])
            _send(front_end, engine, api.ItemIn(identity, media))
            found.extend(_check(front_end, engine, truth, name, size))
            if found:
                break
    except Exception as error:  # the sides failed on this dtype: a finding of its own
        found.append(SizeMismatch(name, size, "pair", f"{type(error).__name__}: {error}"))
    finally:
        close = getattr(engine, "close", None)
        if callable(close):
            close()
    return found


def _send(front_end: api.FrontEndSide, engine: api.EngineSide, item: api.ItemIn) -> None:
    probed = front_end.probe((item,))
    if isinstance(probed, api.ClientRejected):
        raise RuntimeError(f"the front end rejected {item.identity} sent with its media")
    message = front_end.update(probed)
    if not isinstance(message, api.WireMessage):
        raise RuntimeError(f"the front end's update of {item.identity} gave {message}")
    delivered = engine.receive(message)
    if isinstance(delivered, api.Fault):
        raise RuntimeError(f"the engine faulted on {item.identity}: {delivered.detail}")
    missed = delivered.identities if isinstance(delivered, api.Missed) else ()
    front_end.handle_reply(message.request_id, missed)


def _check(front_end: api.FrontEndSide, engine: api.EngineSide, truth: dict[str, int],
           name: str, size: tuple[int, ...]) -> list[SizeMismatch]:
    found = []
    views = (("fe0", [(e.identity, e.size, truth.get(e.identity, 0))
                      for e in front_end.shadow()]),
             ("engine", [(e.identity, e.size, nbytes(e.payload)) for e in engine.receiver()]))
    for side, entries in views:
        for identity, reported, true in entries:
            if reported != true:
                found.append(SizeMismatch(name, size, side, f"{identity} sized {reported} "
                                          f"bytes, torch counts {true}"))
        held = sum(true for _, _, true in entries)
        if held > BUDGET:
            found.append(SizeMismatch(name, size, side, f"holds {held} bytes under a "
                                      f"{BUDGET}-byte budget"))
    return found
