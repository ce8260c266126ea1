"""No mutant set is shipped that only the tests use: every module of `model_checks/` whose
name says it holds mutants is reached from the command line (`model_checks.cli`, through
imports, those inside functions too, and through the module paths its sources name in
strings, as the command registry's lazy loaders and `MODULE:FACTORY` adapter paths do). A
set only the tests run lives under `tests/` (`tests/conform/serving_mutants.py`,
`tests/designs/design_mutants.py`). Also run on a planted package, to show it can fail."""

from __future__ import annotations

import re

from tests.test_layout import _project_sources, import_graph

ENTRY_POINTS = ("model_checks.cli", "model_checks.__main__")
DOTTED = re.compile(r"[\"']((?:model_checks|tests)(?:\.[A-Za-z_]\w*)+)(?::[A-Za-z_]\w*)?[\"']")


def reached(sources: dict[str, str], starts: tuple[str, ...]) -> set[str]:
    """The modules of `sources` that running `starts` can load: their imports (deferred
    ones too), the modules named in their strings, and every package above each."""
    graph = import_graph(sources, deferred=True)
    for name, source in sources.items():
        for dotted in DOTTED.findall(source):
            while dotted and dotted not in sources:
                dotted = dotted.rpartition(".")[0]
            if dotted:
                graph.setdefault(name, set()).add(dotted)
    seen, pending = set(starts), list(starts)
    while pending:
        module = pending.pop()
        parts = module.split(".")
        parents = {".".join(parts[:i]) for i in range(1, len(parts))} & set(sources)
        for target in graph.get(module, set()) | parents:
            if target not in seen:
                seen.add(target)
                pending.append(target)
    return seen


def test_arch_every_shipped_mutant_set_is_run_by_the_command_line() -> None:
    sources = {m: s for m, s in _project_sources().items() if m.startswith("model_checks")}
    mutant_sets = {m for m in sources if "mutant" in m.rpartition(".")[2]}
    assert mutant_sets, "no mutant module found: the rule looks at nothing"
    unreached = sorted(mutant_sets - reached(sources, ENTRY_POINTS))
    assert not unreached, (f"mutant sets only the tests use (move them under tests/): "
                           f"{unreached}")


def test_arch_a_planted_test_only_mutant_set_is_found() -> None:
    planted = {
        "model_checks": "",
        "model_checks.cli": "COMMANDS = [lazy('model_checks.run_command', 'run')]\n",
        "model_checks.run_command": "def run():\n    from model_checks import used_mutants\n",
        "model_checks.used_mutants": "ADAPTER = 'model_checks.adapter_mutants:factory'\n",
        "model_checks.adapter_mutants": "",
        "model_checks.spare_mutants": "",
    }
    seen = reached(planted, ("model_checks.cli",))
    assert {"model_checks.used_mutants", "model_checks.adapter_mutants"} <= seen
    assert "model_checks.spare_mutants" not in seen
