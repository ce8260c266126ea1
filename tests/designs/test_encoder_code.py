"""The encoder-cache design's action-to-code table against the installed vLLM release:
every function it names is the one pinned, and the prefix cache's block key is built from
the item's identity, never from its content (what the drift-combinations page's answer to
the prefix-cache question rests on). Skips in one line without vLLM."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from model_checks.adapters.vllm_pins import changed, source
from tests.designs.encoder_code import BLOCK_HASH_KEY, CODE

pytestmark = pytest.mark.skipif(importlib.util.find_spec("vllm") is None,
                                reason="vLLM is not installed (scripts/setup-vllm)")

PINS = {row.key: row.pin for row in (*CODE, BLOCK_HASH_KEY)}


def test_every_function_of_the_table_is_the_pinned_one() -> None:
    assert changed(pins=PINS) == {}
    assert len({row.key for row in CODE}) >= 12


def test_a_changed_function_is_named(tmp_path: Path) -> None:
    assert set(changed(tmp_path, PINS)) == {row.key for row in (*CODE, BLOCK_HASH_KEY)}


def test_a_block_key_names_the_identity_not_the_content() -> None:
    text = source(BLOCK_HASH_KEY.key)
    assert text is not None
    assert 'extra_keys.append(("mm", mm_feature.identifier, offset - start_token_idx))' in text
    for content in ("mm_feature.data", "mm_kwargs", ".data[", "hash_kwargs"):
        assert content not in text, content
