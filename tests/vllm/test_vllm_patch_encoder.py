"""The composed path's witnesses replayed on the tag patch's copy
(`python -m model_checks.adapters.vllm_encoder --replay WITNESS --patched`), each in a
process of its own: the engine death and the stale encoder output that reproduce on the
release (exit 4) do not break the patched copy (0); the stale content the client's uuid
promises away (E.S4) still shows (4: not what the patch fixes); and each half of the fix is
load-bearing: with an identifier that drops the tag (planted), the stale encoder output is
back, and with the processor cache's stale tensor kept (planted), the engine death is.
The patched copy is built by scripts/setup-vllm-patched; without it these tests skip."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from model_checks.adapters import vllm_patched

pytestmark = pytest.mark.vllm

ROOT = Path(__file__).resolve().parents[2]
WITNESSES = ROOT / "docs/results/designs/lru+encoder/witnesses"
FIXED = ("D2+D7_E.S3", "D7_E.S1", "D7_E2E")
"""The witnesses the patch addresses: they reproduce on the release."""
PLANTS = {
    "tag dropped": "import vllm.multimodal.inputs as m\n"
                   "m.tagged_mm_identifier = lambda identifier, tag: identifier\n",
    "stale tensor kept": "import model_checks.adapters.vllm_encoder as e\n"
                         "e.served_by_patched_processor_cache = lambda item: item\n",
}


def _replay(name: str, *, patched: bool = True, plant: str = "") -> tuple[int, str]:
    if patched and not (vllm_patched.patched_dir() / "vllm").is_dir():
        pytest.skip(f"the patched vLLM copy is not built; run {vllm_patched.SETUP_SCRIPT}")
    args = ["--replay", str(WITNESSES / f"{name}.json"), *(["--patched"] if patched else [])]
    code = ("import sys\n"
            "from model_checks.adapters.vllm_patched import use_patched_copy\n"
            + ("use_patched_copy()\n" if patched else "")
            + plant
            + "from model_checks.adapters.vllm_encoder import main\n"
            f"sys.exit(main({args!r}))\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return run.returncode, run.stdout + run.stderr


@pytest.mark.parametrize("name", FIXED)
def test_vllm_a_witness_of_the_release_does_not_break_the_patched_copy(name: str) -> None:
    assert _replay(name, patched=False)[0] == 4
    code, said = _replay(name)
    assert code == 0, said
    assert "NOT BROKEN ON THE PATCHED COPY" in said and " 0 items consumed" not in said


def test_vllm_stale_content_under_a_reused_uuid_still_shows_on_the_patched_copy() -> None:
    code, said = _replay("D7_E.S4")
    assert code == 4 and "the client sent a.v1" in said, said


@pytest.mark.parametrize(("plant", "name"), [("tag dropped", "D7_E.S1"),
                                             ("tag dropped", "D7_E2E"),
                                             ("stale tensor kept", "D2+D7_E.S3")])
def test_vllm_the_patched_replay_breaks_without_each_half_of_the_fix(plant: str,
                                                                      name: str) -> None:
    code, said = _replay(name, plant=PLANTS[plant])
    assert code == 4 and "BROKEN ON THE PATCHED COPY" in said, said


def test_vllm_a_patched_replay_that_consumes_nothing_fails(tmp_path: Path) -> None:
    """Every item rejected (a planted manager that never allocates): no green without work."""
    plant = ("import model_checks.adapters.vllm_encoder as e\n"
             "e.ReleaseEncoderCache.schedule = lambda self, rid: 'rejected'\n")
    code, said = _replay("D7_E.S1", plant=plant)
    assert code == 1 and "NOTHING CONSUMED" in said, said
