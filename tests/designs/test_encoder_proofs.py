"""The encoder design's and the composed path's all-instance answers
(`model_checks.designs.encoder_proofs`): what they cover, and that each is withdrawn when a
premise it rests on fails (a processor cache that crashes on a miss, a configuration that
admits a second content without D7)."""

from __future__ import annotations

import dataclasses

import pytest

from model_checks.designs import encoder_proofs
from model_checks.designs.encoder_proofs import encoder_restricted, path_restricted
from spec.designs.paths import PROCESSOR_THEN_ENCODER
from spec.variants import variant_named


def _covered(found: list[tuple[str, frozenset[str], str]], prop: str) -> list[frozenset[str]]:
    return [env for p, env, _ in found if p == prop]


def test_without_reuse_the_path_keeps_e2e_for_every_instance() -> None:
    sources = frozenset(s.id for s in PROCESSOR_THEN_ENCODER.sources)
    found = path_restricted()
    assert _covered(found, "E2E") == [sources - {"D7"}]
    assert _covered(found, "E.S1") == [sources - {"D7"}]
    assert all("D7" not in env for env in _covered(found, "P.S1"))
    assert _covered(found, "P.S2") == []  # not carried by the path
    assert {p for p, _, _ in encoder_restricted()} == {"S1", "S3", "S4"}


def test_a_processor_cache_that_crashes_on_a_miss_withdraws_e2e(
        monkeypatch: pytest.MonkeyPatch) -> None:
    crashing = dataclasses.replace(variant_named("V0"))
    monkeypatch.setattr(encoder_proofs, "variant_named", lambda name: crashing)
    found = path_restricted()
    assert _covered(found, "E2E") == [] and _covered(found, "E.S1") != []


def test_a_second_content_without_reuse_withdraws_the_one_content_answers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoder_proofs, "EncoderConfig", lambda **fields: None)
    assert encoder_restricted() == []
    assert {p for p, _, _ in path_restricted()} <= {"P.S1", "P.S4"}
