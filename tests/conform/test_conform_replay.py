"""`conform --replay` follows a trace step for step, or says where it cannot.

Every V2 S1 trace of the committed drift lattice (`docs/results/lattice.json` and the trace
files it names) replays on the reference's V2 and on a V2 pair written in the seed's style
(`seed_pair.py`, item by item), in one process and in two: each reproduces the inherited
weakness (exit 4). The asyncio reference adapter updates a request atomically: a trace that
interleaves another step between two items of one update stops there, exit 5. A planted bug
of the end-to-end call (`serve`) and of the client's retry loop are caught, and the traces
conform writes for them replay.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from model_checks.conform.adapter import Adapter, load_adapter
from model_checks.conform.exits import EXIT_FAIL, EXIT_NOT_FOLLOWED, EXIT_WEAKNESS
from model_checks.conform.lru_lockstep.run import ConformRun, conform
from model_checks.conform.lru_lockstep.trace_files import replay_trace, write_failure_traces
from model_checks.conform.profiles import PROFILES
from model_checks.conform.remote import RemoteEngines
from model_checks.kernel import itf
from tests.conform.client_mutants import CLIENT_MUTANTS
from tests.conform.serving_mutants import SERVING_MUTANTS

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = "model_checks.conform.reference_adapter:factory"
SEED_PAIR = "tests.conform.seed_pair:factory"


PAIR_TRACES = sorted((ROOT / "docs" / "results" / "conform-traces").glob("V2_*_S1.json"))
"""V2's S1 breaks with D7 and one more source (`docs/results/conform-traces/README.md`)."""


def _v2_s1_traces() -> list[Path]:
    """Every V2 S1 trace of the committed lattice, and the pair traces."""
    entries = json.loads((ROOT / "docs" / "results" / "lattice.json").read_text())
    found = [ROOT / t["trace"] for e in entries if (e["variant"], e["property"]) == ("V2", "S1")
             for t in e["traces"]]
    assert found and all(p.exists() for p in found)
    return found + PAIR_TRACES


@pytest.fixture(scope="module")
def remotes() -> Iterator[dict[str, RemoteEngines]]:
    made = {path: RemoteEngines(path) for path in (REFERENCE, SEED_PAIR)}
    try:
        yield made
    finally:
        for remote in made.values():
            remote.close()


@pytest.mark.parametrize("adapter_path", [REFERENCE, SEED_PAIR])
@pytest.mark.parametrize("processes", [1, 2])
def test_replay_every_v2_s1_lattice_trace_reproduces_the_weakness(
    adapter_path: str, processes: int, remotes: dict[str, RemoteEngines],
    capsys: pytest.CaptureFixture[str],
) -> None:
    adapter = load_adapter(adapter_path)
    factory = remotes[adapter_path] if processes == 2 else None
    for path in _v2_s1_traces():
        code = replay_trace(adapter, path, factory, frozenset())
        out = capsys.readouterr().out
        assert code == EXIT_WEAKNESS, (path.name, out[-600:])
        assert "followed: every one of the" in out
        assert out.rstrip().splitlines()[-1].startswith("RESULT: REPRODUCED INHERITED WEAKNESS: S1")


def test_replay_stops_at_the_first_step_an_atomic_update_cannot_drive(
    capsys: pytest.CaptureFixture[str],
) -> None:
    adapter = load_adapter("model_checks.conform.async_adapter:factory")
    path = ROOT / "docs" / "results" / "conform-traces" / "V2_D6+D7_S1.json"
    assert replay_trace(adapter, path, None, frozenset({"S1"})) == EXIT_NOT_FOLLOWED
    out = capsys.readouterr().out
    last = out.rstrip().splitlines()[-1]
    assert last == (f"RESULT: NOT FOLLOWED: step 3 of 18 cannot be driven on "
                    f"{adapter.name} (exit {EXIT_NOT_FOLLOWED})")
    assert "update is atomic" in out and "kept" not in out


def _caught_and_replayed(adapter: Adapter, tmp_path: Path, factory: RemoteEngines | None,
                         capsys: pytest.CaptureFixture[str]) -> str:
    """Conform finds a disagreement; the trace written for it replays (exit 1, one process
    and, with `factory`, two). Returns the job that found it."""
    outcome = conform(adapter, PROFILES["ci"], ConformRun(engine_factory=factory))
    assert outcome.findings, "the planted bug was not caught"
    paths = write_failure_traces(tmp_path / "records.json", outcome, {})
    assert paths.findings
    for engines in (None, factory):
        assert replay_trace(adapter, Path(paths.findings[0]), engines, frozenset()) == EXIT_FAIL
        assert "RESULT: REPRODUCED" in capsys.readouterr().out
    return outcome.findings[0].where


def test_a_serve_bug_is_caught_in_two_processes_and_its_trace_replays(
    tmp_path: Path, remotes: dict[str, RemoteEngines], capsys: pytest.CaptureFixture[str],
) -> None:
    mutant = next(m for m in SERVING_MUTANTS if m.name == "serve-forgets-miss-reply")
    where = _caught_and_replayed(mutant.adapter, tmp_path, remotes[REFERENCE], capsys)
    assert where.split()[1] == "served"
    trace = json.loads(next(tmp_path.glob("*.disagreement-1.trace.json")).read_text())
    assert itf.project(trace)["conformance"]["served"] is True


@pytest.mark.parametrize("name", [m.name for m in CLIENT_MUTANTS])
def test_a_retry_loop_bug_is_caught_and_its_trace_replays(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    mutant = next(m for m in CLIENT_MUTANTS if m.name == name)
    _caught_and_replayed(mutant.adapter, tmp_path, None, capsys)


def test_a_v2_stale_pairing_replayed_under_v3_keeps_s1_on_the_reference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--replay TRACE --variant V3`: the V2 witnesses' actions as scripts for V3, settled."""
    from model_checks.cli import main

    for path in _v2_s1_traces():
        code = main(["conform", "--adapter", REFERENCE, "--replay", str(path), "--variant", "V3",
                     "--require", "S1,S3"])
        out = capsys.readouterr().out
        assert code == 0, (path.name, out[-600:])
        assert f"under V3 against {load_adapter(REFERENCE).name}" in " ".join(out.split())
        assert out.rstrip().splitlines()[-1].startswith("RESULT: NOT REPRODUCED")


def test_replay_takes_one_variant(capsys: pytest.CaptureFixture[str]) -> None:
    from model_checks.cli import main

    path = str(PAIR_TRACES[0])
    assert main(["conform", "--adapter", REFERENCE, "--replay", path, "--variant", "V2",
                 "--variant", "V3"]) == 2
    assert "--replay runs under one variant" in capsys.readouterr().err
