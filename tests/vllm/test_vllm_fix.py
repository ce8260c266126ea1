"""The stale pairing under reused identities alone (D7), as a reproducer in vLLM's own calls,
and the tag patch (patches/vllm-0.33.0-tags.diff) that removes it, proved on the release:

- `conform --emit-pytest` on the D7-alone witness writes a file that imports only torch and
  vLLM, fails under plain pytest on 0.33.0 and passes on the patched copy, and fails when
  nothing is served (planted engines that serve nothing, or miss every time);
- the patched copy passes its check (`python -m model_checks.vllm_fix`: conform
  as V3 under every source a vLLM deployment can have, S1 and S3 required, and every
  committed V2 stale-pairing witness replayed under V3), in a process of its own;
- the patch's regression tests (vLLM's style) pass on the patched copy; those of a behaviour
  the release lacks fail on 0.33.0, and the duplicate-item tests fail under a planted
  receiver that resolves every reference first (`livelock_mutant`);
- the callers the CPU set-up cannot import (`patch_callers.py`), run from the patched source,
  pass on the patched copy and fail on 0.33.0.

The patched copy is built by scripts/setup-vllm-patched; without it those tests skip.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from model_checks import vllm_fix
from model_checks.adapters import vllm_patched
from model_checks.cli import main

ROOT = Path(__file__).resolve().parents[2]
WITNESS = ROOT / "docs" / "results" / "lattice" / "V2_D7_S1.json"
MORE_WITNESSES = [ROOT / "docs" / "results" / "conform-traces" / f"V2_{env}_S1.json"
                  for env in ("D1+D7", "D2+D7", "D7+D8")]
"""Stale pairings under other sources beside D7, whose reproducers must behave the same."""
REGRESSION = ROOT / "patches" / "test_vllm_cache_tags.py"
CALLERS = Path(__file__).with_name("patch_callers.py")
FAILING_ON_THE_RELEASE = {
    "test_reused_uuid_after_undelivered_request_misses_then_serves",
    "test_insert_does_not_evict_entry_referenced_by_same_request",
    "test_untagged_item_methods_cannot_pair_a_stale_tensor",
    "test_untagged_reference_from_older_frontend_misses",
    "test_tags_are_unique_per_processing_and_restart",
    "test_reused_uuid_processed_again_gets_own_encoder_and_prefix_key",
}
"""The regression tests of what the release lacks; the others pin what it already does (the
same item twice served, a reference to an earlier request's entry a hit)."""
DUPLICATES = {"test_same_new_image_twice_is_served",
              "test_same_image_twice_beside_held_image_is_served"}
VACUOUS_ENGINES = {
    "serves nothing": "def receive(p1, message):\n    return []\n",
    "misses every time": "def receive(p1, message):\n"
                         "    return MultiModalCacheMissError([w[0] for w in message])\n",
}
"""Planted engines under which the emitted reproducer must fail: nothing is ever served."""

pytestmark = pytest.mark.vllm


def _patched() -> Path:
    root = vllm_patched.patched_dir()
    if not (root / "vllm").is_dir():
        pytest.skip(f"the patched vLLM copy is not built; run {vllm_patched.SETUP_SCRIPT}")
    return root


def _pytest(paths: list[Path], patched: Path | None, *, path: tuple[Path, ...] = (),
            plugin: str | None = None) -> dict[str, str]:
    """Plain pytest on `paths` in one fresh process, vLLM from the wheel or from `patched`
    (`path`: more directories on PYTHONPATH, after it; `plugin`: a module to load with
    ``-p``): each test's outcome by its name ("passed", "failed")."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join(
        str(p) for p in ((patched,) if patched is not None else ()) + path)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider",
         *(("-p", plugin) if plugin else ()),
         "-o", "addopts=", "--rootdir", str(paths[0].parent), *map(str, paths)],
        cwd=paths[0].parent, env=env, capture_output=True, text=True, timeout=600)
    outcomes = {}
    for line in run.stdout.splitlines():
        word, _, test = line.partition(" ")
        if word in ("PASSED", "FAILED") and "::" in test:
            outcomes[test.split("::")[1].split(" ")[0]] = word.lower()
    assert outcomes, run.stdout[-2000:] + run.stderr[-2000:]
    return outcomes


@pytest.fixture(scope="module")
def reproducer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("emitted")
    code = main(["conform", "--adapter", "model_checks.adapters.vllm:factory",
                 "--replay", str(WITNESS), "--emit-pytest", str(directory)])
    assert code == 4
    path = directory / "test_conform_replay_S1.py"
    (directory / REGRESSION.name).write_text(REGRESSION.read_text())
    for witness in MORE_WITNESSES:  # each as test_replay_<witness>.py, its test renamed
        emitted = tmp_path_factory.mktemp("more")
        assert main(["conform", "--adapter", "model_checks.adapters.vllm:factory",
                     "--replay", str(witness), "--emit-pytest", str(emitted)]) == 4
        name = "replay_" + witness.stem.replace("+", "_")
        text = (emitted / "test_conform_replay_S1.py").read_text()
        (directory / f"test_{name}.py").write_text(
            text.replace("def test_conform_replay_S1(", f"def test_{name}("))
    return path


def _emitted_and_regression(reproducer: Path) -> list[Path]:
    return [reproducer, *sorted(reproducer.parent.glob("test_replay_*.py")),
            reproducer.parent / REGRESSION.name]


@pytest.fixture(scope="module")
def on_release(reproducer: Path) -> dict[str, str]:
    return _pytest(_emitted_and_regression(reproducer), None)


@pytest.fixture(scope="module")
def on_patched(reproducer: Path) -> dict[str, str]:
    return _pytest(_emitted_and_regression(reproducer), _patched())


def test_vllm_the_d7_reproducer_imports_only_torch_and_vllm(reproducer: Path) -> None:
    tree = ast.parse(reproducer.read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported == {"dataclasses", "torch", "vllm"}
    assert "get_and_update_features" in reproducer.read_text()


def test_vllm_the_d7_reproducer_fails_on_the_release(on_release: dict[str, str]) -> None:
    assert on_release["test_conform_replay_S1"] == "failed"


def test_vllm_the_d7_reproducer_passes_on_the_patched_copy(on_patched: dict[str, str]) -> None:
    assert on_patched["test_conform_replay_S1"] == "passed"


def test_vllm_the_other_stale_pairing_reproducers_fail_on_the_release_and_pass_patched(
    on_release: dict[str, str], on_patched: dict[str, str],
) -> None:
    replays = {name for name in on_patched if name.startswith("test_replay_")}
    assert len(replays) == len(MORE_WITNESSES)
    assert {on_release[name] for name in replays} == {"failed"}
    assert {on_patched[name] for name in replays} == {"passed"}


def test_vllm_the_patch_regression_tests_pass_patched_and_fail_on_the_release(
    on_release: dict[str, str], on_patched: dict[str, str],
) -> None:
    regression = {name for name in on_patched if name != "test_conform_replay_S1"
                  and not name.startswith("test_replay_")}
    assert regression >= FAILING_ON_THE_RELEASE | DUPLICATES
    assert all(on_patched[name] == "passed" for name in regression)
    assert {n for n in regression if on_release[n] == "failed"} == FAILING_ON_THE_RELEASE


def test_vllm_the_duplicate_tests_fail_when_references_are_resolved_first(
    reproducer: Path,
) -> None:
    """The planted receiver of the livelock: the same item twice misses on every retry."""
    outcomes = _pytest([reproducer.parent / REGRESSION.name], _patched(),
                       path=(CALLERS.parent,), plugin="livelock_mutant")
    assert {n for n, outcome in outcomes.items() if outcome == "failed"} == DUPLICATES


@pytest.mark.parametrize("engine", sorted(VACUOUS_ENGINES))
def test_vllm_the_d7_reproducer_fails_when_nothing_is_served(
    reproducer: Path, engine: str, tmp_path: Path,
) -> None:
    text = reproducer.read_text()
    head, tail = text.split("\ndef test_", 1)
    planted = tmp_path / reproducer.name
    planted.write_text(f"{head}\n{VACUOUS_ENGINES[engine]}\n\ndef test_{tail}")
    assert _pytest([planted], _patched())["test_conform_replay_S1"] == "failed"


def _wire(step: str, patched: Path | None, given: str = "") -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if patched is not None:
        env["PYTHONPATH"] = str(patched)
    run = subprocess.run([sys.executable, "-W", "ignore", str(CALLERS.with_name("patch_wire.py")),
                          step], input=given, env=env, capture_output=True, text=True,
                         timeout=600, check=True)
    return run.stdout


def test_vllm_the_patched_features_and_the_releases_read_each_other() -> None:
    """Encoded by one copy's `MsgpackEncoder`, decoded by the other's `MsgpackDecoder`: the
    release ignores the tag, the patched copy reads an untagged feature as tag None."""
    patched = _patched()
    to_release = _wire("decode", None, _wire("encode", patched))
    to_patched = _wire("decode", patched, _wire("encode", None))
    assert to_release.split("\n")[:2] == ["u 3 None -", "u 3 3.0 -"]
    assert to_patched.split("\n")[:2] == ["u 3 None None", "u 3 3.0 None"]
    assert _wire("decode", patched, _wire("encode", patched)).split("\n")[:2] == [
        "u 3 None 5", "u 3 3.0 5"]


def test_vllm_the_callers_pass_from_the_patched_source_and_fail_from_the_release() -> None:
    patched = _pytest([CALLERS], _patched(), path=(ROOT,))
    release = _pytest([CALLERS], None, path=(ROOT,))
    assert len(patched) >= 5 and set(patched.values()) == {"passed"}
    assert release.keys() == patched.keys() and set(release.values()) == {"failed"}


def test_vllm_the_patched_copy_passes_the_fix_check() -> None:
    _patched()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "model_checks.vllm_fix"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:]
    runs = 2 + len(vllm_fix.witnesses())
    assert run.stdout.rstrip().splitlines()[-1] == f"fix check: {runs} of {runs} runs exit 0"
    assert "fix check: docs/results/lattice/V2_D7_S1.json.gz: exit 0" in run.stdout


def test_vllm_the_witnesses_include_every_v2_stale_pairing() -> None:
    names = {p.name for p in vllm_fix.witnesses()}
    assert {"V2_D7_S1.json", "V2_D1+D7_S1.json", "V2_D2+D7_S1.json"} <= names
    assert not any("D6" in n.split("_")[1].split("+") for n in names if n.endswith("S3.json"))


def test_vllm_the_patched_adapter_refuses_a_process_with_the_wheels_vllm() -> None:
    import vllm  # noqa: F401  (this process imports the wheel's vLLM)

    _patched()
    with pytest.raises(vllm_patched.UnsupportedVllm, match="process of its own"):
        vllm_patched.factory()


def test_vllm_every_file_the_patch_changes_compiles_in_the_copy() -> None:
    root = _patched()
    changed = [line.split()[1].removeprefix("b/") for line in
               vllm_patched.PATCH.read_text().splitlines() if line.startswith("+++ ")]
    assert {"vllm/multimodal/cache/base.py", "vllm/multimodal/cache/lru.py",
            "vllm/model_executor/models/jina_vl.py", "vllm/v1/engine/core_client.py",
            "vllm/v1/engine/input_processor.py"} <= set(changed)
    for name in changed:
        assert not (root / name).is_symlink()
        compile((root / name).read_text(), str(root / name), "exec", dont_inherit=True)
