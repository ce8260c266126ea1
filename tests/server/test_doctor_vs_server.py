"""The doctor's answers held to the committed server runs (docs/results/server/*.json): where a
real server broke under a deployment, the doctor must not say that deployment is safe."""

from __future__ import annotations

import re
import shlex
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
    """Whether a committed run of `witness` with (or without) a processor cache broke (the
    witness named plain or compressed)."""
    for run in runs:
        if not run.get("driven") or not run["witness"].removesuffix(".gz").endswith(witness):
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


FACTS = {
    "D1": ["--reordering", "yes"], "D2": ["--rejections", "yes"],
    "D3": ["--engine-only-clears", "yes"], "D4": ["--sleep-mode"],
    "D5": ["--api-servers", "2"], "D7": ["--client-uuids", "yes"],
    "D8": ["--large-requests", "yes"], "D9": ["--size-skew", "yes"],
    "D10": ["--restarts", "yes"], "D11": ["--oversize", "yes"],
}
"""The doctor's fact that switches each drift source of the LRU design's witnesses on."""
SHM_FACTS = {**FACTS, "D3": ["--sleep-mode"]}
"""The shm design's D3 is the front end's clear (`reset_mm_cache` in flight): sleep mode."""
ANSWER = re.compile(r"^\s*([SHLU]\d) [^:]*: (.*)$")


def deployment(run: dict[str, Any]) -> list[str]:
    """The doctor's arguments for the deployment a run served: the server's own cache flags
    as the serve line, and the witness's drift sources as facts."""
    facts = SHM_FACTS if run.get("design") == "shm" else FACTS
    argv = ["--serve", "vllm serve M " + shlex.join(run["flags"])]
    for source in run["environment"]:
        argv += facts[source]
    return argv


def answers(said: str) -> dict[str, str]:
    """Each property's answer in the doctor's text (its first line naming it)."""
    found: dict[str, str] = {}
    for line in said.splitlines():
        match = ANSWER.match(line)
        if match:
            found.setdefault(match.group(1), match.group(2))
    return found


def refuted(run: dict[str, Any]) -> set[str]:
    """The properties a run showed broken: the witness's own when the run broke, no crash
    (S3) where the engine died, served is sent (S4) where an answer was not a fresh server's."""
    outcomes = {step["outcome"] for step in run["steps"]}
    found = {run["property"]} if run["broke"] else set()
    if "engine-dead" in outcomes:
        found.add("S3")
    if "wrong-answer" in outcomes:
        found.add("S4")
    return found


def contradictions(run: dict[str, Any], said: str) -> list[str]:
    """Each property the run showed broken that the doctor calls kept."""
    told = answers(said)
    return [f"{prop}: {told[prop]}" for prop in sorted(refuted(run))
            if told.get(prop, "").startswith(("KEPT", "holds"))]


DRIVEN = [run for run in load(DOCS) if run.get("driven")]


def cache_kind(run: dict[str, Any]) -> str:
    """The processor cache a run served: "none", "lru" or "shm"."""
    flags = run["flags"]
    if float(flags[flags.index("--mm-processor-cache-gb") + 1]) == 0:
        return "none"
    return flags[flags.index("--mm-processor-cache-type") + 1] \
        if "--mm-processor-cache-type" in flags else "lru"


def _id(run: dict[str, Any]) -> str:
    return f"{Path(run['witness']).stem}-{cache_kind(run)}"


def test_the_committed_runs_cover_the_deployments() -> None:
    assert {"lru", "shm", "none"} <= {cache_kind(run) for run in DRIVEN}
    assert any(set(run["environment"]) <= {"D2", "D8"} and run["broke"] for run in DRIVEN), \
        "no broken run of the default deployment's sources"
    assert any(cache_kind(run) == "shm" and "D3" in run["environment"] and run["broke"]
               for run in DRIVEN), "no broken run of shm with a reset"


@pytest.mark.parametrize("run", DRIVEN, ids=_id)
def test_the_doctor_does_not_call_kept_what_a_server_run_broke(
        run: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    said = doctor(deployment(run), capsys)
    assert refuted(run) <= set(answers(said)) | {"S2"}, answers(said)
    assert contradictions(run, said) == []


def test_a_kept_answer_for_a_crash_the_server_showed_is_a_contradiction() -> None:
    died = {"property": "H1", "broke": True, "environment": ["D3"], "flags": [],
            "steps": [{"outcome": "engine-dead"}]}
    said = "S3 no crash: KEPT, proved\nH1 handles resolve: AT RISK, D3\n"
    assert contradictions(died, said) == ["S3: KEPT, proved"]
    wrong = {**died, "property": "S4", "steps": [{"outcome": "wrong-answer"}]}
    assert contradictions(wrong, "  S4 served is sent: holds (2 requests)\n")
