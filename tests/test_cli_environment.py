"""Every command's `--environment` is the one `spec.Environment` type: built through
`environment_arg.EnvironmentType`, stored as `environment`, with its default stated in the help;
an old or bad spelling is refused in one line on every command, before any checker runs."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from model_checks.cli import COMMANDS, build_parser, main
from model_checks.kernel.environment_arg import EnvironmentType
from spec import BadEnvironment, Environment


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser(name)
    chosen = parser.get_default("_chosen_parser")
    assert isinstance(chosen, argparse.ArgumentParser), name
    return chosen


def _environment_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions
            if any("environment" in s or s == "--env" for s in a.option_strings)]


TAKING = sorted(c.name for c in COMMANDS if _environment_actions(_subparser(c.name)))


def test_the_commands_taking_an_environment_are_known() -> None:
    assert set(TAKING) >= {"conform", "explore", "prove", "simulate"}


@pytest.mark.parametrize("name", TAKING)
def test_every_environment_option_is_the_one_type(name: str) -> None:
    (action,) = _environment_actions(_subparser(name))
    assert action.option_strings == ["--environment"], name
    assert isinstance(action.type, EnvironmentType), name
    assert action.dest == "environment", name
    assert action.help is not None and "(default: " in action.help, name
    parsed = action.type("d7+D2")
    assert isinstance(parsed, Environment) and parsed.text == "D2+D7"
    assert action.type("none") == Environment()


def test_the_check_finds_an_untyped_environment_option() -> None:
    """Planted: an `--environment` without the type is seen."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--environment", default="none")
    (action,) = _environment_actions(parser)
    assert not isinstance(action.type, EnvironmentType)


EXTRA = {"conform": ["--adapter", "m:f"]}


@pytest.mark.parametrize("name", TAKING)
@pytest.mark.parametrize(("text", "said"), [
    ("D2_D7", "an older spelling: write D2+D7"),
    ("D2+Q9", "got 'Q9', expected ids among "),
    ("", "got '', expected ids among "),
])
def test_a_bad_spelling_is_one_line_on_every_command(name: str, text: str, said: str) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main([name, *EXTRA.get(name, []), "--environment", text])
    assert code == 2
    assert err.getvalue().count("\n") == 1 and err.getvalue().startswith("error: "), err
    assert said in err.getvalue()


def test_the_one_spelling_reads_back_and_orders_sources() -> None:
    env = Environment.parse("r1+d10+C1+d2", ("C1", "D2", "D10", "R1"))
    assert env.sources == ("C1", "D2", "D10", "R1")
    assert Environment.parse(env.text, env.sources) == env
    assert Environment.of(("D7", "D10", "D2")).text == "D2+D7+D10"
    with pytest.raises(BadEnvironment, match=r"^--environment: got 'C1', expected ids among "
                                             r"D1, D2"):
        env.within(("D1", "D2", "D10"))
