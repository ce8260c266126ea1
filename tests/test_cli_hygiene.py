"""What a new user sees from every command: `--help` and a usage error print no warning and
no line over 100 columns; an unknown flag prints the subcommand's own usage; usage errors
answer before torch, z3 or Hypothesis is imported; ids are case-insensitive; a fresh install
of the dev extra has what torch needs to import quietly.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from model_checks.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
NAMES = [c.name for c in COMMANDS]


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "model_checks", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


LISTS_EVERY_NAME = "error: unknown mutant "
"""The one error line allowed past 100 columns: `mutants` lists every valid name on the one
line of its usage error (`tests/test_mutants_command.py` holds it to one line)."""


def _clean(done: subprocess.CompletedProcess[str]) -> None:
    text = done.stdout + done.stderr
    assert "warn" not in text.lower(), text[-2000:]
    assert "Traceback" not in text
    wide = [line for line in text.splitlines()
            if len(line) > 100 and not line.startswith(LISTS_EVERY_NAME)]
    assert not wide, wide


@pytest.mark.parametrize("name", ["", *NAMES])
def test_cli_help_and_an_unknown_flag_are_clean(name: str) -> None:
    command = [name] if name else []
    helped = _run(*command, "--help")
    assert helped.returncode == 0
    _clean(helped)
    wrong = _run(*command, "--no-such-flag")
    assert wrong.returncode == 2
    _clean(wrong)
    usage = f"usage: python -m model_checks {name}".rstrip()
    assert wrong.stderr.startswith(usage), wrong.stderr  # the subcommand's, not the top's


USAGE_ERRORS = [
    ("conform", "--adapter", "m:f", "--require", "S9"),
    ("conform", "--adapter", "nope"),
    ("conform", "--adapter", "m:f", "--environment", "D12"),
    ("simulate", "--environment", "D99"),
    ("simulate", "--only", "V2_D12"),
    ("prove", "--environment", "D1+X"),
    ("explore", "--environment", "D1+X"),
    ("mutants", "--mutant", "nope"),
    ("replay", "/no/such/trace.json"),
]


@pytest.mark.parametrize("argv", USAGE_ERRORS, ids=" ".join)
def test_cli_usage_errors_answer_before_torch_z3_or_hypothesis(argv: tuple[str, ...]) -> None:
    probe = ("import sys, contextlib, io\n"
             "from model_checks.cli import main\n"
             "err = io.StringIO()\n"
             "with contextlib.redirect_stderr(err):\n"
             f"    code = main({list(argv)!r})\n"
             "heavy = [m for m in ('torch', 'z3', 'hypothesis') if m in sys.modules]\n"
             "print(code, heavy)\n"
             "sys.stderr.write(err.getvalue())\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.stdout.strip() == "2 []", done.stdout + done.stderr
    assert done.stderr.startswith("error: ")
    _clean(done)


def test_cli_simulate_lists_the_labels_when_no_cell_matches() -> None:
    """The labels listed are the one spelling of a cell (`cells.cell_label`)."""
    done = _run("simulate", "--only", "V2_D12")
    assert done.returncode == 2
    assert "no cell matches 'V2_D12'" in done.stderr and "V3_D5+D7" in done.stderr
    assert "V3_D5_D7" not in done.stderr


def test_cli_an_older_spelling_is_one_line_naming_the_one() -> None:
    """`V2_D1_D7` and `D1_D7` were once read as `V2_D1+D7` and `D1+D7`: now each is a usage
    error of one line that names the spelling to write."""
    for argv, current in ((("simulate", "--only", "V2_D1_D7"), "write V2_D1+D7"),
                          (("simulate", "--environment", "D1_D7"), "write D1+D7"),
                          (("explore", "--environment", "D5_router"), "write D5-router")):
        done = _run(*argv)
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
        assert current in done.stderr, done.stderr
        _clean(done)


def test_cli_ids_are_case_insensitive() -> None:
    from model_checks.conform.lru_lockstep.command import _required
    from spec import Environment

    assert _required("s1, h1") == frozenset({"S1", "H1"})
    assert Environment.parse("d7+D2").sources == ("D2", "D7")
    assert Environment.parse("NONE").sources == ()


def test_cli_property_ids_known_to_the_command_line_are_the_registry() -> None:
    from model_checks.conform.lru_lockstep.command import PROPERTY_IDS
    from spec import DRIFT_IDS, Drift, registry

    assert tuple(p.id for p in registry()) == PROPERTY_IDS
    assert tuple(d.value for d in Drift) == DRIFT_IDS


def test_cli_a_truncated_trace_file_says_where() -> None:
    broken = ROOT / "build" / "test-cli-hygiene" / "truncated.json"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text('{"#meta": {"format": "paired\n')
    done = _run("replay", str(broken))
    assert done.returncode == 2
    assert "at at" not in done.stderr and "line 1, column" in done.stderr


def test_cli_the_package_declares_what_torch_imports_quietly() -> None:
    """torch warns ("Failed to initialize NumPy") on every import without numpy: the package
    itself declares it, so a plain `pip install .` prints no warning
    (tests/test_plain_install.py installs one)."""
    needed = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(d.split(">")[0].split("=")[0].strip() == "numpy" for d in needed)


@pytest.mark.parametrize("command", ["explore", "simulate", "prove"])
def test_an_environment_has_one_option_name_and_no_abbreviation(
    command: str, capsys: pytest.CaptureFixture[str],
) -> None:
    """`--environment` is the only spelling: neither an older name (`--env`) nor a prefix of
    the option is taken, so a command line means one thing in every release."""
    from model_checks.cli import main

    for spelling in ("--env", "--environ"):
        with pytest.raises(SystemExit) as usage:
            main([command, spelling, "D1"])
        assert usage.value.code == 2
        assert f"unrecognized arguments: {spelling} D1" in capsys.readouterr().err

