"""`conform --emit-pytest DIR`: a failure as a standalone pytest file in the implementation's
own calls. It runs under plain pytest in a fresh interpreter (no plugins, so no Hypothesis;
importing it imports no spec), fails on the implementation it came from and passes once the
bug is removed; the file for the seed-style pair's V2 S1 weakness has at most 8 calls."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from model_checks.cli import main

ROOT = Path(__file__).resolve().parents[2]
CALL = re.compile(r"^    (\w+ = )?(fe\d+|engine)\.\w+\(", re.M)


def _pytest(directory: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(directory)], cwd=directory, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def _imports_of(path: Path) -> str:
    """The project modules importing and running the file pulls in (a fresh interpreter)."""
    code = (f"import sys; sys.path.insert(0, {str(path.parent)!r}); import {path.stem} as t\n"
            f"try:\n    t.test_{path.stem.removeprefix('test_')}()\nexcept AssertionError:\n"
            "    pass\nprint(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ,
                          "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=300, check=True)
    return done.stdout


def test_an_emitted_file_fails_on_the_bug_and_passes_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "emitted"
    assert main(["conform", "--adapter", "tests.conform.ordered_pair:"
                 "factory_sender_evicting_by_count", "--environment", "none",
                 "--emit-pytest", str(out)]) == 1
    assert "pytest file for S2" in capsys.readouterr().out
    path = out / "test_conform_disagreement_1.py"
    text = path.read_text()
    assert "import spec" not in text and "hypothesis" not in text
    assert CALL.findall(text) and all(
        re.search(r"# \d+\. ", line) for line in text.splitlines() if CALL.match(line))
    assert _pytest(out).returncode == 1
    modules = _imports_of(path).split()
    assert "spec" not in modules and "hypothesis" not in modules, modules
    for each in out.glob("test_*.py"):  # the bug removed: the pair as written
        each.write_text(each.read_text().replace(
            "import factory_sender_evicting_by_count as factory", "import factory as factory"))
    assert _pytest(out).returncode == 0


def test_the_seed_pair_s1_weakness_in_at_most_8_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "emitted"
    assert main(["conform", "--adapter", "tests.conform.seed_pair:factory", "--require",
                 "S1", "--emit-pytest", str(out)]) == 4
    capsys.readouterr()
    text = (out / "test_conform_S1.py").read_text()
    assert len(CALL.findall(text)) <= 8, text
    assert _pytest(out).returncode == 1


def test_replay_emits_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "emitted"
    trace = ROOT / "docs" / "results" / "conform-traces" / "V2_D6+D7_S1.json"
    assert main(["conform", "--adapter", "tests.conform.seed_pair:factory", "--replay",
                 str(trace), "--emit-pytest", str(out)]) == 4
    assert "pytest file for S1" in capsys.readouterr().out
    assert _pytest(out).returncode == 1


def test_an_emitted_s1_file_fails_when_its_engine_serves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """A planted engine that serves an empty list: the S1 check must not pass vacuously."""
    out = tmp_path / "emitted"
    trace = ROOT / "docs" / "results" / "conform-traces" / "V2_D6+D7_S1.json"
    assert main(["conform", "--adapter", "tests.conform.seed_pair:factory", "--replay",
                 str(trace), "--emit-pytest", str(out)]) == 4
    capsys.readouterr()
    path = out / "test_conform_replay_S1.py"
    built = "    engine = adapter.engine(setup)\n"
    text = path.read_text()
    assert built in text
    path.write_text(text.replace(built, built + "    engine.receive = lambda message: "
                                 "api.Served(())\n"))
    assert _pytest(out).returncode == 1
