"""One meaning per option string across every subcommand: the same destination, the same kind
(a flag, or a value of one type), and for the words that once meant two things (`--jobs`,
`--processes`) help that starts with their one meaning (`model_checks.kernel.options`). A
former spelling (`explore --processes N`, `conform --tasks N`) is refused in one line with a
hint; "task" is the executor's unit of work, so no option is named after it."""

from __future__ import annotations

import argparse
import contextlib
import inspect
import io
from collections import defaultdict
from pathlib import Path

import pytest

from model_checks.cli import COMMANDS, build_parser, main
from model_checks.kernel.options import JOBS, PROCESSES, is_renamed

MEANINGS = {"--jobs": JOBS, "--processes": PROCESSES}
"""The option strings whose help must start with their one meaning."""


def _meaning(action: argparse.Action) -> tuple[str, str, str]:
    """What an option means to the command line: where it goes, whether it takes a value,
    and the value's type (repeatable or not is no second meaning)."""
    takes = "flag" if action.nargs == 0 else "value"
    return action.dest, takes, _value_type(action.type)


def _value_type(convert: object) -> str:
    """The type a value is read as: a class's name, else what the converter returns (a
    function normalising text reads text)."""
    if convert is None:
        return "str"
    if isinstance(convert, type):
        return convert.__name__
    returns = inspect.signature(convert).return_annotation  # type: ignore[arg-type]
    return getattr(returns, "__name__", str(returns))


def two_meanings(parsers: dict[str, argparse.ArgumentParser]) -> list[str]:
    """Each option string declared with two meanings, or against its stated one."""
    seen: dict[str, dict[tuple[str, str, str], list[str]]] = defaultdict(dict)
    wrong = []
    for name, parser in parsers.items():
        for action in parser._actions:
            if is_renamed(action) or isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                seen[option].setdefault(_meaning(action), []).append(name)
                stated = MEANINGS.get(option)
                if stated and not (action.help or "").startswith(stated):
                    wrong.append(f"{option} on {name}: {action.help!r}, not {stated!r}")
    wrong += [f"{option}: {meanings}" for option, meanings in sorted(seen.items())
              if len(meanings) > 1]
    return wrong


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    return {c.name: build_parser(c.name).get_default("_chosen_parser") for c in COMMANDS}


def test_no_option_has_two_meanings() -> None:
    parsers = _subparsers()
    assert len(parsers) == len(COMMANDS) and all(parsers.values())
    assert not two_meanings(parsers)


def test_jobs_are_workers_and_processes_the_conformance_split() -> None:
    parsers = _subparsers()
    jobs = {n for n, p in parsers.items() if "--jobs" in p._option_string_actions}
    split = {n for n, p in parsers.items() if "--processes" in p._option_string_actions
             and not is_renamed(p._option_string_actions["--processes"])}
    assert {"explore", "prove", "simulate", "mutants"} <= jobs
    assert split == {"conform", "mutants"}


def test_the_check_finds_an_option_with_two_meanings() -> None:
    """Planted: `--processes` as worker processes beside conformance's split; `--json` as a
    flag beside a path."""
    workers, split = argparse.ArgumentParser(), argparse.ArgumentParser()
    workers.add_argument("--processes", type=int, default=2, help="worker processes")
    workers.add_argument("--json", action="store_true")
    split.add_argument("--processes", type=int, choices=(1, 2), help=PROCESSES)
    split.add_argument("--json", type=Path)
    found = two_meanings({"workers": workers, "split": split})
    assert any(f.startswith("--processes on workers") for f in found), found
    assert any(f.startswith("--json: ") for f in found), found


@pytest.mark.parametrize("name", ["explore"])
def test_the_former_worker_option_is_refused_with_a_hint(name: str) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main([name, "--processes", "2"])
    assert code == 2 and err.getvalue().count("\n") == 1, err.getvalue()
    assert err.getvalue().startswith("error: --processes: write --jobs N")


def test_conforms_former_asyncio_option_is_refused_naming_the_new_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", "no.such:factory", "--tasks", "4"]) == 2
    err = capsys.readouterr().err
    assert err == ("error: --tasks: write --async-clients N for N asyncio clients (a task is "
                   "one unit of the executor's work)\n"), err


def test_no_option_is_named_after_a_task() -> None:
    named = [f"{name} {option}" for name, parser in _subparsers().items()
             for option, action in parser._option_string_actions.items()
             if "task" in option and not is_renamed(action)]
    assert not named, named
