"""A plain install runs every command: the wheel built from the checkout, installed with its
declared dependencies only (no extras) into a fresh venv (not sharing this one's packages),
runs `explore`, `prove`, `doctor`, `conform` and `replay` from an empty directory, with no
warning on build or import; the options that need an extra say which, in one line.

Slow (a venv, torch and the dependencies installed from the package index pip is configured
with): `python -m pytest -m slow tests/test_plain_install.py`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
TORCH = "torch==2.13.0"
SOURCES = ("pyproject.toml", "setup.py", "README.md", "spec", "reference", "model_checks", "docs")
NOISE = ("Warning", "warning:", "Failed to initialize NumPy", "Traceback")


def _copy(target: Path) -> Path:
    """The package's sources, copied so that the build writes nothing into the checkout."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    target.mkdir()
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copyfile(source, target / name)
    return target


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv holding the wheel and its declared dependencies only."""
    base = tmp_path_factory.mktemp("plain")
    source = _copy(base / "source")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps",
                            "--no-build-isolation", "-w", str(base / "dist"), str(source)],
                           cwd=base, capture_output=True, text=True, check=True)
    assert "SetuptoolsDeprecationWarning" not in built.stdout + built.stderr
    (wheel,) = (base / "dist").glob("paired_caches-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", TORCH, str(wheel)], check=True,
                   env=_env())
    return python


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def _run(python: Path, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), "-m", "model_checks", *argv], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=900)


def _quiet(done: subprocess.CompletedProcess[str]) -> None:
    assert not [n for n in NOISE if n in done.stderr], done.stderr[-2000:]


def test_the_venv_has_no_extra_and_imports_quietly(plain: Path, tmp_path: Path) -> None:
    found = subprocess.run([str(plain), "-c", "import importlib.util as u, model_checks, "
                            "reference, spec; print([m for m in ('msgspec', 'zmq', 'yaml', "
                            "'dask', 'pytest') if u.find_spec(m)], model_checks.__file__)"],
                           cwd=tmp_path, env=_env(), capture_output=True, text=True, check=True)
    assert found.stdout.startswith("[] ") and str(ROOT) not in found.stdout
    assert found.stderr == ""


def test_every_command_runs_from_an_empty_directory(plain: Path, tmp_path: Path) -> None:
    explored = _run(plain, ["explore", "--variant", "V2", "--environment", "D7"], tmp_path)
    assert explored.returncode == 0 and "V2       D7" in explored.stdout, explored.stderr
    _quiet(explored)
    (trace,) = (tmp_path / "build" / "explore" / "counterexamples").glob("V2_D7_S4.json")
    replayed = _run(plain, ["replay", str(trace)], tmp_path)
    assert replayed.returncode == 0 and "S4 broken at step" in replayed.stdout
    notation = replayed.stdout.strip().splitlines()[-1].removeprefix("notation: ")
    assert Path(notation).is_file(), notation
    proved = _run(plain, ["prove", "--variant", "V0", "--environment", "D1", "--property",
                          "H1", "--depth", "4", "--jobs", "1", "--chc", "none", "--mirror",
                          "none"], tmp_path)
    assert proved.returncode == 0 and "1 of 1 cells as expected" in proved.stdout, proved.stderr
    _quiet(proved)
    conformed = _run(plain, ["conform", "--adapter",
                             "model_checks.conform.reference_adapter:factory", "--variant",
                             "V2"], tmp_path)
    assert conformed.returncode == 0 and "RESULT: CONFORMS" in conformed.stdout
    _quiet(conformed)


def test_the_doctor_cites_witnesses_the_package_carries(plain: Path, tmp_path: Path) -> None:
    asked = _run(plain, ["doctor", "--vllm-version", "0.33.0", "--client-uuids", "yes",
                         "--require", "S1", "--json"], tmp_path)
    assert asked.returncode == 4, asked.stderr
    _quiet(asked)
    found = json.loads(asked.stdout)["findings"]
    witness = found[0]["witness"].rsplit(" (", 1)[0]
    assert "site-packages" in witness and Path(witness).is_file()
    replayed = _run(plain, ["replay", witness], tmp_path)
    assert replayed.returncode == 0 and "S1 broken at step" in replayed.stdout


def test_an_option_needing_an_extra_says_which(plain: Path, tmp_path: Path) -> None:
    two = _run(plain, ["conform", "--adapter", "model_checks.conform.reference_adapter:factory",
                       "--variant", "V2", "--processes", "2"], tmp_path)
    assert two.returncode == 2
    assert two.stderr.strip().splitlines() == [
        "error: two processes need pyzmq and msgspec (msgspec is not installed): pip install "
        "'paired-caches[processes]'"]
    yaml = tmp_path / "serve.yaml"
    yaml.write_text("enable-sleep-mode: true\n")
    read = _run(plain, ["doctor", "--vllm-version", "0.33.0", "--serve",
                        f"vllm serve M --config {yaml}"], tmp_path)
    assert read.returncode == 2
    assert read.stderr.strip().splitlines() == [
        "error: reading --config needs PyYAML: pip install 'paired-caches[config]'"]
