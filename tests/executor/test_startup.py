"""Start-up: a command that fails on its arguments answers before importing torch, z3 or
Hypothesis (they cost seconds each on a loaded machine). Checked on the modules imported, in a
fresh interpreter, never on time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "z3", "hypothesis", "distributed")

PROBE = """
import contextlib, io, json, sys
from model_checks.cli import main
err = io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exit:
        code = exit.code
heavy = [m for m in HEAVY if m in sys.modules]
print(json.dumps({"code": code, "heavy": heavy, "stderr": err.getvalue()}))
""".replace("HEAVY", repr(HEAVY))


def _probe(*argv: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": str(ROOT),
                                                       "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("argv", [
    ("prove", "--variant", "V9"),
    ("prove", "--depth", "-1"),
    ("prove", "--environment", "D99"),
    ("simulate", "--profile", "huge"),
    ("simulate", "--only", "no-such-cell"),
    ("simulate", "--jobs", "0"),
    ("mutants", "--checkers", "tla"),
    ("mutants", "--processes", "3"),
    ("replay",),
    ("no-such-command",),
])
def test_a_usage_error_answers_before_the_checkers_are_imported(argv: tuple[str, ...]) -> None:
    result = _probe(*argv)
    assert result["code"] == 2, result
    assert result["heavy"] == [], f"{' '.join(argv)} imported {result['heavy']}"
    stderr = str(result["stderr"]).strip()
    assert stderr and "Traceback" not in stderr


def test_help_imports_no_checker() -> None:
    for argv in (("--help",), ("prove", "--help"), ("simulate", "--help"), ("mutants", "--help")):
        result = _probe(*argv)
        assert result["code"] == 0 and result["heavy"] == [], (argv, result)
