"""vLLM's shared-memory object store under `conform --design shm`
(`model_checks.adapters.vllm_shm:factory`):

- the release follows the design's spec on every step of seeded runs in several
  environments (exit 0);
- every committed witness of the design (docs/results/designs/shm/witnesses/) replays on
  the release step for step and reproduces its property there (exit 4);
- a planted fault (`shm_mutants`) is caught (exit 1): a worker that skips the id check, a P0
  that counts client handles, and a worker whose read is not split (its copy at its check);
- `--emit-pytest` writes the replay as a test that fails while the release breaks it.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.designs.witness_files import committed
from model_checks.kernel import result_files

ADAPTER = "model_checks.adapters.vllm_shm:factory"
ROOT = Path(__file__).resolve().parents[2]
WITNESSES = committed(ROOT)

pytestmark = pytest.mark.vllm


def _conform(*extra: str) -> list[str]:
    return ["conform", "--design", "shm", "--adapter", ADAPTER, *extra]


@pytest.mark.parametrize("environment", ["none", "D2", "D3+R1", "C1+D1+D7"])
def test_the_release_follows_the_design_on_every_step(
    environment: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(_conform("--environment", environment, "--steps", "150")) == 0
    out = capsys.readouterr().out
    assert re.search(rf"environment {re.escape(environment)}: 150 lockstep steps, every step "
                     r"agreed", out)
    assert "byte map: 1 model byte = 64 B" in out
    assert out.rstrip().splitlines()[-1] == "RESULT: CONFORMS: every step agreed (exit 0)"


def test_the_committed_witnesses_are_one_per_minimal_breaking_set_and_property() -> None:
    lattice = result_files.read(ROOT / "docs" / "results" / "designs" / "shm.json.gz")
    expected = {f"{env}_{prop}" for prop, envs in lattice["minimal"].items() for env in envs}
    assert sorted(p.stem for p in WITNESSES) == sorted(expected)
    assert {"D2_U1", "D3_S3", "D3_S1", "R1_S3", "R1_S1", "D7_S4", "C1_S3"} <= expected


@pytest.mark.parametrize("witness", WITNESSES, ids=[p.stem for p in WITNESSES])
def test_every_committed_witness_reproduces_on_the_release(
    witness: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(_conform("--replay", str(witness))) == 4
    out = capsys.readouterr().out
    prop = witness.stem.split("_")[1]
    assert "every step agreed with the spec" in out
    assert out.rstrip().splitlines()[-1] == (
        f"RESULT: REPRODUCED: the implementation breaks {prop} as the design's spec does "
        f"(exit 4)")


@pytest.mark.parametrize(("mutant", "environment"), [("skip_id_check", "D3"),
                                                     ("count_client_handles", "C1")])
def test_a_planted_fault_is_caught(mutant: str, environment: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    adapter = f"tests.vllm.shm_mutants:{mutant}"
    assert main(["conform", "--design", "shm", "--adapter", adapter, "--environment",
                 environment, "--steps", "400"]) == 1
    out = capsys.readouterr().out
    assert "DISAGREEMENT in environment" in out
    assert out.rstrip().splitlines()[-1].startswith("RESULT: DISAGREEMENT with design shm's")


def test_a_worker_without_the_id_check_disagrees_on_the_d3_witness(
    capsys: pytest.CaptureFixture[str],
) -> None:
    witness = ROOT / "docs/results/designs/shm/witnesses/D3_S3.json"
    assert main(["conform", "--design", "shm", "--adapter", "tests.vllm.shm_mutants:"
                 "skip_id_check", "--replay", str(witness)]) == 1
    out = capsys.readouterr().out
    assert "spec:           Served(worker=0, fault='data modified or invalid'" in out


def test_the_split_read_is_what_serves_another_tensor_on_the_release(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The D3 witness of S1 (a worker checks a's handle, P0 clears and writes b there, the
    worker copies) reproduces on the release's classes; a worker whose read runs whole at
    its check disagrees at that check, its read counted before P0 could write."""
    witness = ROOT / "docs/results/designs/shm/witnesses/D3_S1.json"
    assert main(_conform("--replay", str(witness))) == 4
    capsys.readouterr()
    assert main(["conform", "--design", "shm", "--adapter", "tests.vllm.shm_mutants:"
                 "atomic_read", "--replay", str(witness)]) == 1
    out = capsys.readouterr().out
    assert "DISAGREEMENT with the spec at step 3 (exit 1)" in out  # the check: read counted
    assert '"action": "Check"' in out and "reads=1" in out


def test_emit_pytest_writes_a_test_failing_while_the_release_breaks_the_property(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    witness = ROOT / "docs/results/designs/shm/witnesses/D2_U1.json"
    assert main(_conform("--replay", str(witness), "--emit-pytest", str(tmp_path))) == 4
    (written,) = tmp_path.glob("test_*.py")
    assert f"pytest file: {written}" in capsys.readouterr().out
    spec = importlib.util.spec_from_file_location("emitted_shm", written)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(AssertionError, match="U1 broken on the implementation"):
        module.test_shm_d2_u1()
