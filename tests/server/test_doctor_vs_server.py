"""The doctor's answers held to the committed server runs (docs/results/server/*.json): where a
real server broke under a deployment, the doctor must not say that deployment is safe."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from model_checks.cli import main
from model_checks.docs.server_section import load

DOCS = Path(__file__).resolve().parents[2] / "docs"
OLD_NO_CACHE_TEXT = "--mm-processor-cache-gb is 0: no multimodal cache at all"


def doctor(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["doctor", "--vllm-version", "0.33.0", *argv]) == 0
    return re.sub(r"\n {4,}", " ", capsys.readouterr().out)


def broke(runs: list[dict[str, Any]], *, processor_cache: bool, witness: str) -> bool:
    """Whether a committed run of `witness` with (or without) a processor cache broke."""
    for run in runs:
        if not run.get("driven") or not run["witness"].endswith(witness):
            continue
        flags = run["flags"]
        has_cache = float(flags[flags.index("--mm-processor-cache-gb") + 1]) > 0
        if has_cache == processor_cache and run["broke"]:
            return True
    return False


def no_cache_contradiction(runs: list[dict[str, Any]], said: str) -> str | None:
    """Why the doctor's answer for `--mm-processor-cache-gb 0` contradicts the runs, if it does:
    a run without a processor cache broke on a reused uuid, so the answer must name the encoder
    cache that still keys by identity."""
    if broke(runs, processor_cache=False, witness="V2_D7_S4.json") and "encoder cache" not in said:
        return "a server without a processor cache broke on a reused uuid; the doctor says " \
               "nothing of the encoder cache"
    return None


def test_the_committed_runs_cover_both_deployments() -> None:
    runs = load(DOCS)
    assert broke(runs, processor_cache=True, witness="V2_D7_S4.json")
    assert broke(runs, processor_cache=False, witness="V2_D7_S4.json")


def test_the_doctor_names_the_encoder_cache_where_a_server_without_processor_cache_broke(
        capsys: pytest.CaptureFixture[str]) -> None:
    said = doctor(["--serve", "vllm serve M --mm-processor-cache-gb 0"], capsys)
    assert no_cache_contradiction(load(DOCS), said) is None


def test_the_old_answer_is_caught_as_contradicting_the_run() -> None:
    assert no_cache_contradiction(load(DOCS), f"no paired cache here: {OLD_NO_CACHE_TEXT}")


def test_client_uuids_break_s1_and_s4_as_the_server_did(
        capsys: pytest.CaptureFixture[str]) -> None:
    runs = load(DOCS)
    assert broke(runs, processor_cache=True, witness="V2_D7_S1.json")
    said = doctor(["--client-uuids", "yes"], capsys)
    for prop in ("S1", "S4"):
        line = next(line for line in said.splitlines() if line.lstrip().startswith(prop + " "))
        assert "AT RISK" in line or "BREAKS" in line, line
