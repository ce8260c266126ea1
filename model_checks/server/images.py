"""The images a witness's contents become: one PNG per (identity, version), deterministic,
sized so that its processed size is the witness's size (`model_checks.server.tiny_model`'s
geometry), written with the standard library only (the driver runs without Pillow).

A content of size u (the witness's bytes, in units) is an image `TILE` high and
(2u - 1) * `TILE` wide: the processor makes 2u tiles of it (the base image and 2u - 1 grid
tiles), so its processed size is `processed_bytes(u)` = u * `UNIT_BYTES` + 16. A budget of B
units is `budget_bytes(B)` = B * `UNIT_BYTES` + `SLACK` bytes: a set of items fits it exactly
when their units add up to at most B (each item's 16 bytes of `image_sizes` stay under the
slack for up to `SLACK` / 16 items, and one more unit never fits).
"""

from __future__ import annotations

import base64
import hashlib
import struct
import zlib

from model_checks.server.tiny_model import IMAGE_SIZES_BYTES, MAX_TILES_WIDE, TILE, TILE_BYTES

UNIT_BYTES = 2 * TILE_BYTES
"""Processed bytes per unit of a witness's size (two tiles)."""
SLACK = TILE_BYTES // 2
"""Bytes a budget holds beyond its units: room for the items' `image_sizes`, never a unit."""
MAX_UNITS = (MAX_TILES_WIDE + 1) // 2
"""The largest size (in units) an image can have: 2u - 1 grid tiles fit the pinpoints."""


def width(units: int) -> int:
    """The width in pixels of a content of `units` units (its height is `TILE`)."""
    if not 1 <= units <= MAX_UNITS:
        raise ValueError(f"a content of {units} units is outside 1..{MAX_UNITS}")
    return (2 * units - 1) * TILE


def processed_bytes(units: int) -> int:
    """The processed size in bytes of a content of `units` units."""
    return 2 * units * TILE_BYTES + IMAGE_SIZES_BYTES


def budget_bytes(units: int) -> int:
    """The processor cache's budget in bytes for a witness's budget of `units`."""
    return units * UNIT_BYTES + SLACK


def png(identity: str, version: int, units: int) -> bytes:
    """The PNG of content (identity, version): `TILE` x `width(units)` pixels whose colours
    are a hash of the content, so two contents differ in every row."""
    wide = width(units)
    seed = hashlib.sha256(f"{identity}/{version}".encode()).digest()
    rows = []
    for y in range(TILE):
        row = bytearray([0])  # filter type 0 for each scanline
        for x in range(wide):
            h = hashlib.blake2s(seed + struct.pack(">HH", x // 4, y // 4), digest_size=3).digest()
            row += h
        rows.append(bytes(row))
    header = struct.pack(">IIBBBBB", wide, TILE, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + _chunk(b"IEND", b""))


def data_url(identity: str, version: int, units: int) -> str:
    """The content as a `data:image/png;base64,...` URL (what a chat request carries)."""
    return "data:image/png;base64," + base64.b64encode(png(identity, version, units)).decode()


def _chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
