"""vLLM's released caches under `conform` (`model_checks.adapters.vllm:factory`):

- V2 (the variant the release implements) conforms: every lockstep step agreed, exit 0;
- `--require S1` is the inherited weakness (exit 4) and names the minimal environments that
  docs/drift-combinations.md lists for V2's S1 (read from that page and from the lattice,
  never written here);
- every V2 S1 trace of the committed lattice (D7 alone: a hand-built run, 4 requests on a
  budget of 3) and each of V2's S1 breaks with D7 and one more source
  (`docs/results/conform-traces/`) replays on the release with exit 4, step for step (D6's item
  through the adapter's `update_item`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from drift_page import page_minimal

from model_checks.cli import main
from model_checks.conform.lru_lockstep.weakness import weakness
from spec.drift import Environment

ADAPTER = "model_checks.adapters.vllm:factory"
ROOT = Path(__file__).resolve().parents[2]
LATTICE = ROOT / "docs" / "results" / "lattice"

pytestmark = pytest.mark.vllm


def _joined(out: str) -> str:
    return re.sub(r"\n +", " ", out)


def test_vllm_release_conforms_to_v2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--adapter", ADAPTER, "--variant", "V2"]) == 0
    out = capsys.readouterr().out
    assert "conformance of vllm 0.33.0" in out
    assert "lockstep: every step agreed with the spec" in out
    steps = int(re.search(r"(\d+) lockstep\s+steps", out).group(1))  # type: ignore[union-attr]
    assert steps > 0
    assert out.rstrip().splitlines()[-1] == "RESULT: CONFORMS: every step agreed (exit 0)"


def test_vllm_require_s1_is_the_inherited_weakness_naming_the_pages_environments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", ADAPTER, "--variant", "V2", "--require", "S1"]) == 4
    out = _joined(capsys.readouterr().out)
    listed = page_minimal("V2", "S1")
    assert listed and all("D7" in env for env in listed)
    # the page and the lattice agree
    assert set(listed) == {frozenset(e) for e in weakness("V2", "S1").minimal}
    named = ", ".join(Environment.of(e).text for e in weakness("V2", "S1").minimal)
    assert "S1 consistent pairing [required]: INHERITED WEAKNESS on V2" in out
    assert f"({weakness('V2', 'S1').source}): {named}" in out
    assert "removed by another variant: V3/V4 (tags, references first, late-miss" in out
    assert out.rstrip().splitlines()[-1] == (
        "RESULT: CONFORMS, BUT INHERITED WEAKNESS of the variant: required S1 on V2 (exit 4)")


V2_S1_TRACES = sorted(LATTICE.glob("V2_*_S1.json.gz"))
PAIR_TRACES = sorted((ROOT / "docs" / "results" / "conform-traces").glob("V2_*_S1.json"))
"""V2's S1 breaks with D7 and one more source, D6's interleaved item updates among them
(`docs/results/conform-traces/README.md`)."""


@pytest.mark.parametrize("trace", [*V2_S1_TRACES, *PAIR_TRACES],
                         ids=[p.stem for p in [*V2_S1_TRACES, *PAIR_TRACES]])
def test_vllm_every_v2_s1_trace_of_the_lattice_replays_with_exit_4(
    trace: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", ADAPTER, "--replay", str(trace)]) == 4
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last == "RESULT: REPRODUCED INHERITED WEAKNESS: S1 broken as V2 breaks it (exit 4)"


def test_vllm_the_lattice_has_v2_s1_traces_to_replay() -> None:
    assert {frozenset(p.stem.split("_")[1].split("+")) for p in V2_S1_TRACES} == set(
        page_minimal("V2", "S1"))


def test_vllm_release_conforms_with_its_engine_side_in_another_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The receiver in a child process: tensors cross a socket and are sized there."""
    assert main(["conform", "--adapter", ADAPTER, "--variant", "V2", "--processes", "2"]) == 0
    out = capsys.readouterr().out
    assert "conformance of vllm 0.33.0 (two processes" in out
    assert out.rstrip().splitlines()[-1] == "RESULT: CONFORMS: every step agreed (exit 0)"


def test_the_release_runs_traced_under_the_seeded_scheduler() -> None:
    """`--threads` on the release: no yield hook, so its real classes run traced (a
    preemption point at each of their lines), the same history from the same seed."""
    from model_checks.adapters.vllm import factory
    from model_checks.history.concurrent import ThreadRun, run_threads
    from model_checks.history.log import log_lines
    from spec import environment

    runs = [run_threads(factory(), "V2", environment("D3"), ThreadRun(4, 1)) for _ in range(2)]
    assert runs[0].controlled and runs[0].preemptions > 0
    assert any(name.startswith("vllm/multimodal/") for name, _ in runs[0].traced)
    assert log_lines(runs[0].history) == log_lines(runs[1].history)


def test_the_release_reaches_s1_in_its_deployment_by_its_own_run(tmp_path: Path) -> None:
    """The client-uuids deployment: the committed V2 witness of S1 inside it, driven in
    lockstep on the release and continued, breaks S1 there: exit 4, the trace written from
    that run (not the committed file)."""
    records = tmp_path / "records.json"
    code = main(["conform", "--adapter", ADAPTER, "--variant", "V2", "--environment",
                 "D1+D2+D7+D8+D9", "--require", "S1", "--json", str(records)])
    assert code == 4
    written = tmp_path / "records.S1.trace.json"
    assert written.exists() and "witness" in written.read_text()
