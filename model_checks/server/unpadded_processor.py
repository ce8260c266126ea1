"""LLaVA-NeXT's processor without padding across images: each image keeps its own tiles.

Copied into the tiny model's folder as its remote-code processor (`tiny_model.build`; the
server runs with `--trust-remote-code`), so this file imports only transformers and torch.

Why: transformers' LLaVA-NeXT processor pads every image of one call to the tile count of the
largest, and its `do_pad=False` fails at the tensor conversion of ragged tiles. vLLM processes
the missed items of a request in one call and sizes each cache entry by its tensors, so with
padding an item's processed size would depend on the other items of its request. Here each
image's tiles are cut back to its own count (the base image plus the tiles of its best grid
resolution), and `pixel_values` is a list of per-image tensors, which vLLM's LLaVA-NeXT accepts.
"""

from __future__ import annotations

from typing import Any

from transformers import LlavaNextProcessor
from transformers.feature_extraction_utils import BatchFeature
from transformers.image_processing_utils import select_best_resolution


class UnpaddedLlavaNextProcessor(LlavaNextProcessor):  # type: ignore[misc]
    """`LlavaNextProcessor` whose `pixel_values` are each image's own tiles, unpadded."""

    def __call__(self, *args: Any, **kwargs: Any) -> BatchFeature:
        out: BatchFeature = super().__call__(*args, **kwargs)
        if "pixel_values" not in out:
            return out
        processor = self.image_processor
        tile = processor.crop_size["height"]
        tiles = []
        for pixels, (height, width) in zip(out["pixel_values"], out["image_sizes"], strict=True):
            best_height, best_width = select_best_resolution(
                (int(height), int(width)), processor.image_grid_pinpoints)
            tiles.append(pixels[: 1 + (best_height // tile) * (best_width // tile)].clone())
        data = dict(out)
        data["pixel_values"] = tiles
        return BatchFeature(data, skip_tensor_conversion=["pixel_values"])
