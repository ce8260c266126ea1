"""The answers ship with the package: built as a wheel (not editable) and installed into a
fresh venv, run from outside the checkout, `doctor` prints what the checkout prints (its
witnesses the package's own copies), and the
gate refuses V2's S1 under D7 alone (exit 4) as it does here. The answer store is package
data; only the dependencies come from this environment (on PYTHONPATH, where the checkout's
editable hook is not read)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCTOR = ["doctor", "--vllm-version", "0.33.0", "--client-uuids", "yes", "--sleep-mode"]
GATE = ["conform", "--adapter", "model_checks.conform.reference_adapter:factory",
        "--variant", "V2", "--environment", "D7", "--require", "S1"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv with the package's wheel installed (no dependencies)."""
    base = tmp_path_factory.mktemp("installed")
    wheels = base / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", "-w", str(wheels), str(ROOT)], check=True,
                   cwd=base)
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    (wheel,) = wheels.glob("paired_caches-*.whl")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                    "--target", _site(python), str(wheel)], check=True)
    return python


def _site(python: Path) -> str:
    return subprocess.run([str(python), "-c", "import sysconfig; "
                           "print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()


def _run(python: Path, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    return subprocess.run([str(python), "-m", "model_checks", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_the_installed_package_is_not_the_checkout(installed: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    where = subprocess.run([str(installed), "-c", "import model_checks.answers as a; "
                            "print(a.__file__)"], cwd=tmp_path, env=env, check=True,
                           capture_output=True, text=True).stdout
    assert str(ROOT) not in where and "site-packages" in where


def test_doctor_answers_as_the_checkout_does(installed: Path, tmp_path: Path) -> None:
    here = _run(Path(sys.executable), DOCTOR, ROOT)
    there = _run(installed, DOCTOR, tmp_path)
    assert here.returncode == there.returncode == 0, there.stderr
    joined = " ".join(there.stdout.split())
    assert "S1 consistent pairing: BREAKS under D7" in joined
    # the witnesses it cites open from the installed package: its own copies (setup.py)
    shipped = f"{_site(installed)}/model_checks/shipped/"
    assert shipped + "docs/results/" in joined
    assert joined.replace(shipped, "") == " ".join(here.stdout.split())


def test_the_gate_refuses_v2_s1_under_d7_as_the_checkout_does(installed: Path,
                                                               tmp_path: Path) -> None:
    here = _run(Path(sys.executable), GATE, ROOT)
    there = _run(installed, GATE, tmp_path)
    assert here.returncode == there.returncode == 4, there.stdout[-1500:] + there.stderr
    last = there.stdout.strip().splitlines()[-1]
    assert last == here.stdout.strip().splitlines()[-1]
    assert "INHERITED WEAKNESS" in last and "S1 on V2" in last


def test_the_itf_schema_ships_beside_its_module(installed: Path, tmp_path: Path) -> None:
    """`replay --itf` users validate against the schema the package ships (package data)."""
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    found = subprocess.run([str(installed), "-c", "from model_checks.kernel import itf; "
                            "print(itf.SCHEMA.is_file(), itf.SCHEMA)"], cwd=tmp_path, env=env,
                           check=True, capture_output=True, text=True).stdout.split()
    assert found[0] == "True" and "site-packages" in found[1], found
