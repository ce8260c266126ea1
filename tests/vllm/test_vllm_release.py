"""Which vLLM releases the adapter takes, and scripts/setup-vllm's refusals. These run
without vLLM: a missing or unsupported release is refused in one line naming the script."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from model_checks.adapters import vllm_release
from model_checks.adapters.vllm import VllmAdapter
from model_checks.cli import main
from spec import VARIANT_NAMES

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / vllm_release.SETUP_SCRIPT
OFFLINE = {"PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
           "PIP_EXTRA_INDEX_URL": "", "PIP_FIND_LINKS": "", "PIP_CONSTRAINT": "",
           "PIP_RETRIES": "0", "PIP_TIMEOUT": "2"}


def test_release_an_unsupported_release_is_refused_in_one_line() -> None:
    with pytest.raises(vllm_release.UnsupportedVllm) as refused:
        vllm_release.require_supported("0.32.0")
    message = str(refused.value)
    assert "\n" not in message and "got vllm 0.32.0, expected vllm 0.33.0" in message
    assert vllm_release.SETUP_SCRIPT in message


def test_release_a_missing_vllm_is_refused_naming_the_script(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(vllm_release, "installed_version", lambda: None)
    with pytest.raises(vllm_release.UnsupportedVllm, match="vLLM is not installed; run "
                       "scripts/setup-vllm"):
        vllm_release.require_supported()


def test_release_conform_refuses_another_release_with_exit_2_and_changes_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    monkeypatch.setattr(vllm_release, "installed_version", lambda: "0.32.0")
    out = tmp_path / "records.json"
    code = main(["conform", "--adapter", "model_checks.adapters.vllm:factory",
                 "--json", str(out)])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.strip().splitlines() == [
        "error: model_checks.adapters.vllm:factory() raised UnsupportedVllm: got vllm 0.32.0, "
        "expected vllm 0.33.0 (the releases this adapter was checked against; "
        "scripts/setup-vllm installs it)"]
    assert not out.exists()


def test_release_the_adapter_supports_only_the_variant_its_release_implements() -> None:
    adapter = VllmAdapter("0.33.0")
    assert [v for v in VARIANT_NAMES if adapter.supports(v)] == [
        vllm_release.IMPLEMENTS[("0.33.0", "lru")]]
    assert adapter.name == "vllm 0.33.0"


def test_release_requirements_pin_nothing_of_requirements_ci() -> None:
    def names(path: Path) -> set[str]:
        lines = (line.split("#")[0].strip() for line in path.read_text().splitlines())
        return {line.split("==")[0].lower().replace("_", "-") for line in lines if line}

    vllm_pins = names(ROOT / "requirements-vllm.txt")
    assert "vllm" in vllm_pins and len(vllm_pins) > 30
    assert not vllm_pins & names(ROOT / "requirements-ci.txt")
    lines = [line.split("#")[0].strip()
             for line in (ROOT / "requirements-vllm.txt").read_text().splitlines()]
    assert all("==" in line for line in lines if line)  # exact pins only


@pytest.fixture(scope="module")
def empty_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    return venv


def _run(script: Path, venv: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **OFFLINE, "PAIRED_CACHES_VENV": str(venv)}
    return subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def _packages(venv: Path) -> str:
    return subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "freeze"],
                          capture_output=True, text=True, check=True).stdout


def test_setup_vllm_an_unreachable_index_is_one_line_and_installs_nothing(
    empty_venv: Path,
) -> None:
    before = _packages(empty_venv)
    run = _run(SCRIPT, empty_venv)
    assert run.returncode == 1
    assert run.stdout.startswith("setup-vllm: installing into ")  # it says what it installs
    assert "vllm==0.33.0" in run.stdout
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("setup-vllm: cannot reach the package index, nothing installed (")
    assert _packages(empty_venv) == before


def test_setup_vllm_refuses_a_pin_of_requirements_ci(empty_venv: Path, tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    script = tmp_path / "scripts" / "setup-vllm"
    shutil.copy(SCRIPT, script)
    shutil.copy(ROOT / "requirements-ci.txt", tmp_path)
    pins = (ROOT / "requirements-vllm.txt").read_text() + "torch==2.13.0\n"
    (tmp_path / "requirements-vllm.txt").write_text(pins)
    run = _run(script, empty_venv)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.strip().splitlines() == [
        "setup-vllm: requirements-vllm.txt pins torch of requirements-ci.txt; remove them"]


@pytest.mark.vllm
def test_setup_vllm_run_again_installs_nothing_and_asks_no_index() -> None:
    env = {**os.environ, **OFFLINE}
    run = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True,
                         timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].endswith("pins of requirements-vllm.txt are installed already; nothing "
                             "to install")
    assert lines[-1].startswith("setup-vllm: done: vllm 0.33.0 beside torch ")
