"""With `--mm-processor-cache-gb 0` there is no processor cache, but the engine's encoder
cache still keys every item by its identity: the doctor names it and, with client uuids,
its risk (a reused uuid answered from the old content), from the encoder design's committed
answers; with content hashes it says those answers hold."""

from __future__ import annotations

import re

import pytest

from model_checks.cli import main


def doctor(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["doctor", "--vllm-version", "0.33.0", "--serve",
                 "vllm serve M --mm-processor-cache-gb 0", *extra])
    return code, re.sub(r"\n {2,}", " ", capsys.readouterr().out)


def test_client_uuids_without_a_processor_cache_name_the_encoder_cache_and_its_risk(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = doctor(capsys, "--client-uuids", "yes")
    assert code == 0
    assert "no multimodal cache at all" not in out
    assert "the engine's encoder cache is still here" in out
    assert "S1 consistent pairing: BREAKS under D7" in out
    assert "S3 no crash: holds" in out
    assert "a reused uuid of equal size is answered from the old content" in out


def test_content_hashes_without_a_processor_cache_keep_the_encoder_cache_s_answers(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = doctor(capsys, "--client-uuids", "no")
    assert code == 0 and "the engine's encoder cache is still here" in out
    assert "BREAKS" not in out and "risk:" not in out
