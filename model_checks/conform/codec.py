"""How spec contents become real media and tensors, and how tensors are read back.

A spec `Content(identity, version)` gets a code: ``1 + 16 * index(identity) + version``. Its
raw media is the int64 tensor ``[code, shadow_bytes]``; the harness's processor turns it into
one uint8 tensor of ``shadow_bytes`` elements, every element equal to the code, and the
placeholders ``(offset=code, length=shadow_bytes)``. So a payload's ``nbytes`` is exactly the
spec's P0 size, and both the tensor and the placeholders say which content they come from:
S1 is checked on tensor values, not on bookkeeping.

Size skew (D9) is a real event on the channel: `resize_payload` re-encodes a payload to the
spec's P1 size (padding or truncating, values unchanged), as a serialisation that changes the
size would; P1 then measures what it received.
"""

from __future__ import annotations

import torch

from model_checks.conform.adapter import Payload
from spec import Config, Content

KEY = "pixel_values"
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
    return torch.tensor([code_of(config, content), config.shadow_bytes(content)], dtype=torch.int64)


def process_media(media: torch.Tensor) -> tuple[dict[str, torch.Tensor], tuple[int, int]]:
    """The harness's processor (deterministic): media -> (payload, placeholders)."""
    code, size = (int(v) for v in media.tolist())
    return {KEY: torch.full((size,), code, dtype=torch.uint8)}, (code, size)


def payload_code(payload: Payload) -> int | None:
    """The code every element of the payload holds, or None if it holds none uniformly."""
    if set(payload) != {KEY}:
        return None
    tensor = payload[KEY]
    if tensor.numel() == 0 or tensor.dtype != torch.uint8:
        return None
    first = int(tensor[0])
    return first if bool((tensor == first).all()) else None


def payload_nbytes(payload: Payload) -> int:
    return sum(int(t.nbytes) for t in payload.values())


def resize_payload(payload: Payload, nbytes: int) -> dict[str, torch.Tensor]:
    """The payload re-encoded to `nbytes` bytes, values unchanged (D9 on the channel)."""
    code = payload_code(payload)
    if code is None or payload_nbytes(payload) == nbytes:
        return dict(payload)
    return {KEY: torch.full((nbytes,), code, dtype=torch.uint8)}
