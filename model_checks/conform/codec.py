"""How spec contents become real media and tensors, and how tensors are read back.

A spec `Content(identity, version)` gets a code: ``1 + 16 * index(identity) + version``. Its
raw media is the int64 tensor ``[code, shadow_bytes]``; the harness's processor turns it into
a payload of **several tensors of different dtypes and shapes** (`layout`: a 2-D float32
``pixel_values``, an int16 ``patch_ids``, a uint8 ``image_grid``, as many of them as the byte
count allows), every element equal to the code, whose ``nbytes`` sum to ``shadow_bytes``, and
the placeholders ``(offset=code, length=placeholder_length(shadow_bytes))``, a length that is
neither the byte count nor the element count. So the processed item's size is exactly the
spec's P0 size, an implementation that sizes an item by its element count, by its first
tensor or by its placeholder length disagrees, and both the tensors and the placeholders say
which content they come from: S1 is checked on tensor values, not on bookkeeping.

Size skew (D9) is a real event on the channel: `resize_payload` re-encodes a payload to the
spec's P1 size (the layout of that byte count, values unchanged), as a serialisation that
changes the size would; P1 then measures what it received.

Torch is imported where a tensor or a dtype is made (`media_for`, `layout`, `encode`), the one
place of the lockstep driver's modules that needs it, so that loading them (as the `conform`
command does before it checks its arguments) loads no torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from model_checks.conform.payload import Payload
from spec import Config, Content

if TYPE_CHECKING:
    import torch

_IDENTITY_STRIDE = 16


def code_of(config: Config, content: Content) -> int:
    if content.version >= _IDENTITY_STRIDE:
        raise ValueError(f"got version {content.version}, expected < {_IDENTITY_STRIDE}")
    return 1 + _IDENTITY_STRIDE * config.identities.index(content.identity) + content.version


def content_of(config: Config, code: int) -> Content | None:
    """The content a code names, or None for a value no content has (a garbled tensor)."""
    index, version = divmod(code - 1, _IDENTITY_STRIDE)
    if code < 1 or index >= len(config.identities) or version >= config.versions:
        return None
    return Content(config.identities[index], version)


def media_for(config: Config, content: Content) -> torch.Tensor:
    """The raw media a client sends for `content`."""
    import torch

    return torch.tensor([code_of(config, content), config.shadow_bytes(content)], dtype=torch.int64)


_FLOAT, _SHORT, _BYTE = "pixel_values", "patch_ids", "image_grid"


def layout(nbytes: int) -> list[tuple[str, torch.dtype, tuple[int, ...]]]:
    """The tensors of a payload of `nbytes` bytes: float32 rows of one element, then int16,
    then uint8 (1 byte: one uint8; 3 bytes: int16 + uint8; 7 bytes: all three)."""
    import torch

    floats, rest = divmod(nbytes, 4)
    shorts, single = divmod(rest, 2)
    parts: list[tuple[str, torch.dtype, tuple[int, ...]]] = []
    if floats:
        parts.append((_FLOAT, torch.float32, (floats, 1)))
    if shorts:
        parts.append((_SHORT, torch.int16, (shorts,)))
    if single:
        parts.append((_BYTE, torch.uint8, (single,)))
    return parts


def placeholder_length(nbytes: int) -> int:
    """Tokens an item of `nbytes` bytes takes: neither its byte nor its element count."""
    return 2 * nbytes + 1


def encode(code: int, nbytes: int) -> dict[str, torch.Tensor]:
    """The payload of `nbytes` bytes whose every element is `code`."""
    import torch

    return {name: torch.full(shape, code, dtype=dtype) for name, dtype, shape in layout(nbytes)}


def process_media(media: torch.Tensor) -> tuple[dict[str, torch.Tensor], tuple[int, int]]:
    """The harness's processor (deterministic): media -> (payload, placeholders)."""
    code, size = (int(v) for v in media.tolist())
    return encode(code, size), (code, placeholder_length(size))


def payload_code(payload: Payload) -> int | None:
    """The code every element of every tensor holds, or None: no tensor, a name or dtype the
    layout of its byte count does not have, or values that are not one code (garbled)."""
    expected = {name: (dtype, shape) for name, dtype, shape in layout(payload_nbytes(payload))}
    if not payload or set(payload) != set(expected):
        return None
    codes: set[int] = set()
    for name, tensor in payload.items():
        if tensor.numel() == 0 or (tensor.dtype, tuple(tensor.shape)) != expected[name]:
            return None
        codes.update(int(v) for v in tensor.reshape(-1).tolist())
    return codes.pop() if len(codes) == 1 else None


def payload_nbytes(payload: Payload) -> int:
    return sum(int(t.nbytes) for t in payload.values())


def resize_payload(payload: Payload, nbytes: int) -> dict[str, torch.Tensor]:
    """The payload re-encoded to `nbytes` bytes, values unchanged (D9 on the channel)."""
    code = payload_code(payload)
    if code is None or payload_nbytes(payload) == nbytes:
        return dict(payload)
    return encode(code, nbytes)
