"""The site generator, the doctor and the adapters import no command-line module; an adapter
reads nothing of tests/.

`model_checks/docs/` renders pages, `model_checks/doctor/` answers a deployment and
`model_checks/adapters/` puts an implementation under the checks, below the command line;
none needs the command line (`model_checks.cli`, its registry and parser) nor a command's module (a
`command.py`, a `cli.py`, a `*_command.py`; their own `command.py` is theirs, and imports no
other). What they share with the command line (the exit codes, `UsageError`) is in
`model_checks.kernel.exits`. Checked on the import graph, imports inside functions included, and
through every module in between: a page that imports a module that imports the command line
imports it too. An adapter runs where the project is installed without its tests: no string
of its code (docstrings aside) names tests/ or a module under it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from model_checks.cli import COMMANDS
from tests.test_layout import _project_sources, import_graph

CONSUMERS = ("model_checks.docs", "model_checks.doctor", "model_checks.adapters")
"""The packages held to the rule."""

ALLOWED: dict[tuple[str, str], str] = {}
"""Import edges tolerated, with the reason. An entry that is no longer an edge fails the test,
so the list only shrinks."""


def command_modules(modules: set[str]) -> set[str]:
    """The command-line modules among `modules`: `model_checks.cli`, `__main__`, and every
    module named `command`, `cli` or `*_command` (the command registry's modules, each
    command's parser and run)."""
    return {m for m in modules if m.rsplit(".", 1)[-1] in {"command", "cli", "__main__"}
            or m.endswith("_command")}


def reached_commands(graph: dict[str, set[str]], consumers: tuple[str, ...],
                     commands: set[str]) -> list[str]:
    """Every command-line module a module of `consumers` imports, directly or through others
    (other than itself), as "importer -> ... -> command"."""
    found = []
    for start in sorted(m for m in graph if m.startswith(tuple(f"{c}." for c in consumers))
                        or m in consumers):
        parent: dict[str, str] = {}
        pending, seen = [start], {start}
        while pending:
            module = pending.pop(0)
            for target in sorted(graph[module]):
                if target not in seen:
                    seen.add(target)
                    parent[target] = module
                    pending.append(target)
        for command in sorted((seen - {start}) & commands):
            path = [command]
            while path[-1] != start:
                path.append(parent[path[-1]])
            found.append(" -> ".join(reversed(path)))
    return found


def test_the_registry_runs_command_line_modules() -> None:
    """The rule looks where the commands are: every parser the registry builds is in a
    module `command_modules` names, but the nightly job's (`jobs.run`, the job itself)."""
    parsers = {c.add_arguments.__qualname__.rpartition(".")[0] for c in COMMANDS}
    parsers = {name for name in parsers if name.startswith("model_checks.")}
    assert parsers and parsers <= command_modules(set(_project_sources())) | {
        "model_checks.jobs.run"}, parsers


def test_docs_doctor_and_adapters_import_no_command_line_module() -> None:
    graph = import_graph(_project_sources(), deferred=True)
    stale = [edge for edge in ALLOWED if edge[1] not in graph.get(edge[0], set())]
    assert not stale, f"ALLOWED edges no longer imported (drop them): {stale}"
    for importer, target in ALLOWED:
        graph[importer] = graph[importer] - {target}
    found = reached_commands(graph, CONSUMERS, command_modules(set(graph)))
    assert not found, (f"{', '.join(CONSUMERS)} import a command-line module (read what "
                       f"they share from model_checks.kernel.exits): {found}")


def test_a_planted_command_import_is_found() -> None:
    planted = {
        "model_checks": "",
        "model_checks.cli": "from model_checks.kernel.exits import EXIT_OK\n",
        "model_checks.kernel.exits": "EXIT_OK = 0\n",
        "model_checks.run_command": "",
        "model_checks.docs": "",
        "model_checks.docs.command": "from model_checks.kernel.exits import EXIT_OK\n",
        "model_checks.docs.page": "from model_checks.docs import helper\n",
        "model_checks.docs.helper": "def later():\n    from model_checks.cli import main\n",
        "model_checks.doctor": "",
        "model_checks.doctor.facts": "import model_checks.explore.lattice_command\n",
        "model_checks.explore": "",
        "model_checks.explore.lattice_command": "",
        "model_checks.doctor.answer": "from model_checks import run_command\n",
        "model_checks.adapters": "",
        "model_checks.adapters.fix": "def check():\n    from model_checks.cli import main\n",
    }
    graph = import_graph(planted, deferred=True)
    commands = command_modules(set(graph))
    assert commands == {"model_checks.cli", "model_checks.docs.command",
                        "model_checks.explore.lattice_command", "model_checks.run_command"}
    assert reached_commands(graph, CONSUMERS, commands) == [
        "model_checks.adapters.fix -> model_checks.cli",
        "model_checks.docs.helper -> model_checks.cli",
        "model_checks.docs.page -> model_checks.docs.helper -> model_checks.cli",
        "model_checks.doctor.answer -> model_checks.run_command",
        "model_checks.doctor.facts -> model_checks.explore.lattice_command",
    ]
    for name in ("model_checks.docs.helper", "model_checks.doctor.facts",
                 "model_checks.doctor.answer", "model_checks.adapters.fix"):
        planted[name] = "from model_checks.kernel.exits import EXIT_OK\n"
    assert reached_commands(import_graph(planted, deferred=True), CONSUMERS, commands) == []


ADAPTERS = Path(__file__).resolve().parents[2] / "model_checks" / "adapters"


def names_tests(source: str) -> list[str]:
    """The strings of `source`, docstrings aside, that name tests/ or a module under it."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings
            and (node.value == "tests" or node.value.startswith(("tests/", "tests.")))]


def test_no_adapter_reads_the_tests_folder() -> None:
    found = {path.name: names_tests(path.read_text()) for path in sorted(ADAPTERS.glob("*.py"))}
    assert not any(found.values()), {name: hit for name, hit in found.items() if hit}


def test_a_planted_read_of_the_tests_folder_is_found() -> None:
    assert names_tests('ROOT = Path(".")\nWITNESS = ROOT / "tests" / "vllm"\n') == ["tests"]
    assert names_tests('FACTORY = "tests.conform.seed_pair:factory"\n') == [
        "tests.conform.seed_pair:factory"]
    assert names_tests('"""Checked by tests/vllm/."""\ndef f():\n    """tests/x"""\n') == []
