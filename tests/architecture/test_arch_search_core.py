"""The explorer's searches move through one successor function.

Every search for the state graph (`graph.build`, `distributed`'s stateless workers,
`partition`'s owned partitions) and the regeneration of a stored state take a step as
`search_core.Reductions` does: the action applied to the cleared state, then both
reductions. So no module of `model_checks/explore/` but `search_core` applies an action
(`.apply(`, an action's own `apply` aside) or canonicalises identities (a call of
`canonical_identities`): a second copy of the successor function could drift from the
first, and the searches' graphs with it.
Checked on the modules' syntax trees.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXPLORE = ROOT / "model_checks" / "explore"
CORE = "search_core.py"
STEPS = frozenset({"apply", "canonical_identities"})
"""The calls that take a step or canonicalise one: a method `.apply(...)` (an action's) or
the function `canonical_identities(...)`."""


def step_calls(source: str) -> list[tuple[int, str]]:
    """Each call of one of `STEPS` in `source`: its line and the name called; not those in
    the body of an action's own `apply` (an action the search takes that is a spec action
    with something set first, `lru_reductions.lazy_media.Decided`, states its step as that
    spec action's: the search core still applies it)."""
    tree = ast.parse(source)
    own_steps = {id(node) for function in ast.walk(tree)
                 if isinstance(function, ast.FunctionDef) and function.name == "apply"
                 for node in ast.walk(function)}
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in own_steps:
            function = node.func
            name = (function.attr if isinstance(function, ast.Attribute)
                    else function.id if isinstance(function, ast.Name) else None)
            if name in STEPS:
                calls.append((node.lineno, name))
    return sorted(calls)


def test_arch_only_the_search_core_takes_a_step() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}"
             for path in sorted(EXPLORE.rglob("*.py")) if path.name != CORE
             for line, _ in step_calls(path.read_text())]
    assert not found, f"a step taken outside search_core.Reductions: {found}"


def test_arch_the_search_core_takes_its_steps() -> None:
    """The rule names what the core does: it has each of the calls the others may not."""
    assert {name for _, name in step_calls((EXPLORE / CORE).read_text())} == STEPS


def test_arch_a_planted_second_successor_function_is_found() -> None:
    planted = (
        "def expand(config, state, groups):\n"
        "    for action in enabled(config, state):\n"
        "        successor = canonical(action.apply(config, state))\n"
        "        yield canonical_identities(successor, groups)\n"
    )
    assert step_calls(planted) == [(3, "apply"), (4, "canonical_identities")]
    assert step_calls("def f(action):\n    return action.applies\n") == []


def test_arch_an_actions_own_step_is_not_a_second_successor_function() -> None:
    """An action's `apply` delegating to the spec action it wraps is its step; the same call
    anywhere else is a step taken outside the core."""
    wrapper = ("class Decided:\n"
               "    def apply(self, config, state):\n"
               "        return self.action.apply(config, state)\n"
               "    def other(self, config, state):\n"
               "        return self.action.apply(config, state)\n")
    assert step_calls(wrapper) == [(5, "apply")]
