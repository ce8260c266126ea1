"""docs/vllm.md's "On a real server" says per run what the server did, with its log line, and
which witnesses were not driven and why."""

from __future__ import annotations

from typing import Any

from model_checks.docs.server_section import section

BROKEN: dict[str, Any] = {
    "witness": "docs/results/lattice/V2_D7_S1.json.gz", "driven": True, "broke": True,
    "flags": ["--mm-processor-cache-gb", repr(79872 / 2**30)], "encoder_cache_reset": True,
    "steps": [
        {"step": 2, "action": "request 0: g.v1", "outcome": "answered", "status": 200,
         "message": "", "log": []},
        {"step": 10, "action": "request 3: h.v0 (uuid only)", "outcome": "engine-dead",
         "status": 500, "message": "EngineCore encountered an issue",
         "log": ["ValueError: Attempted to assign 10 = 10 multimodal tokens to 12 placeholders"]},
    ]}
UNDRIVEN = {"witness": "docs/results/lattice/V2_D3_H1.json.gz", "driven": False, "step": 6,
            "action": "p1_clear", "why": "a clear of the engine's cache alone"}


def test_without_a_run_the_section_says_so() -> None:
    assert "No committed run" in "\n".join(section([]))


def test_a_break_is_shown_with_its_deployment_and_log_line() -> None:
    text = "\n".join(section([BROKEN, UNDRIVEN]))
    assert "## On a real server" in text
    row = next(line for line in text.splitlines() if "V2_D7_S1" in line)
    assert "**break**" in row and "**engine dead**" in row
    assert "processor cache 79872 B" in row and "Attempted to assign 10" in row
    assert "| `lattice/V2_D3_H1.json.gz` | 6 (`p1_clear`)" in text


def test_a_run_without_a_break_says_no_break() -> None:
    quiet = {**BROKEN, "broke": False, "steps": BROKEN["steps"][:1],
             "flags": ["--mm-processor-cache-gb", "0"], "encoder_cache_reset": False}
    row = next(line for line in section([quiet]) if "V2_D7_S1" in line)
    assert "no break" in row and "no processor cache, encoder cache kept" in row


def test_a_shm_run_names_its_cache_type() -> None:
    shm = {**BROKEN, "witness": "docs/results/designs/shm/witnesses/D3_H1.json",
           "flags": [*BROKEN["flags"], "--mm-processor-cache-type", "shm"]}
    row = next(line for line in section([shm]) if "D3_H1" in line)
    assert "shm processor cache 79872 B" in row
    assert "lru processor cache 79872 B" in next(
        line for line in section([BROKEN]) if "V2_D7_S1" in line)


def test_the_log_line_shown_is_the_error_not_the_raise_of_its_traceback() -> None:
    died = {**BROKEN, "steps": [{**BROKEN["steps"][1], "log": [
        "raise ValueError(", "ValueError: Data for address:id '0:0' has been modified or is "
        "invalid."]}]}
    row = next(line for line in section([died]) if "V2_D7_S1" in line)
    assert "has been modified or is invalid" in row and "`raise" not in row


def test_a_run_with_held_requests_says_their_encoder_cache_was_not_reset() -> None:
    held = {**BROKEN, "steps": [{**BROKEN["steps"][0],
                                 "action": "request 0: a.v0 (held in the engine's queue)"}]}
    row = next(line for line in section([held]) if "V2_D7_S1" in line)
    assert "encoder cache reset before each request not held" in row
