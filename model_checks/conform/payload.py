"""The tensor types that cross the adapter interface, apart from the interface itself so that
both the interface (`adapter`) and the encoding of spec contents as tensors (`codec`) read
them without either importing the other's module at call time. They are types, spelled for
the type checker: loading them loads no torch (`codec` does, where it makes tensors)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import torch

Payload: TypeAlias = "Mapping[str, torch.Tensor]"
"""A payload: tensors by name (flat)."""

Process: TypeAlias = "Callable[[torch.Tensor], tuple[dict[str, torch.Tensor], tuple[int, int]]]"
"""The harness's processor: raw media -> (payload, (placeholder offset, placeholder length))."""
