"""One instance builder: the checked instances are built by `spec.instances` alone, read from
the source with `ast`. A `Config(...)` or `Instance(...)` call, or a `replace(...)` that sets
an instance field (identities, budget, sizes, versions, bounds, front ends, engines), appears
only in `spec/instances.py` and at the places `ALLOWED` names, each with the reason it is not
a searched instance (a decoder, a catalogue or witness of its own, a rung or bounds that are
not configurations). A checker that built its instance its own way again fails here; the
check is also run on planted sources, to show it can fail.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("spec", "reference", "model_checks", "benchmarks")
BUILDER = "spec/instances.py"
BUILT = frozenset({"Config", "Instance"})
INSTANCE_FIELDS = frozenset({"identities", "budget", "sizes", "versions", "max_retries",
                             "max_in_flight", "max_requests", "max_items", "front_ends",
                             "engines"})

ALLOWED: dict[str, str] = {
    "spec/designs/lru_design.py::config_from_json":
        "decoder: the configuration a witness file states",
    "model_checks/kernel/trace_file.py::config_from_json":
        "decoder: the configuration a trace file states",
    "model_checks/smt/decode/trace.py":
        "decoder: the configuration a Z3 model chose (its budget and sizes are symbolic)",
    "model_checks/history/instance.py::instance_of":
        "decoder: the configuration a recorded history's contents are coded in",
    "model_checks/conform/lru_lockstep/cases.py":
        "the conformance catalogue: configurations chosen to drive an implementation, "
        "not a checker's instances",
    "model_checks/scenarios/catalog.py":
        "the scenario catalogue: each scenario states the configuration its trace runs on",
    "model_checks/mutation/spec_mutants.py::witness_config":
        "a spec mutant's witness: the configuration its scenario runs on, cut to what its "
        "script uses",
    "model_checks/explore/named_instance.py":
        "a user's instance: the bounds and sizes named on the command line, handed to the "
        "builder as the matrix's family with those values",
    "model_checks/server/witnesses.py":
        "the server's witnesses: the configuration each hand-written schedule of ordinary "
        "requests runs on",
    "model_checks/designs/evidence.py":
        "the shared-memory design's own configuration type, widened for one witness",
    "spec/designs/paths.py::_build":
        "the composed path's instance: the LRU design's generic one, with one more request "
        "per rung of the path's ladder",
    "model_checks/designs/path_witnesses.py":
        "the composed path's explicit witnesses: the configuration each runs on, widened "
        "from the ladder's (a third identity and more requests; the processor cache's D7 "
        "witness's own)",
    "model_checks/explore/lattice_lru.py::liveness_notes":
        "a liveness witness's configuration with one retry more: whether its break "
        "depends on the retry bound",
    "model_checks/explore/lattice_instance.py::describe_family":
        "a projection of one identity for describing it, never searched",
    "model_checks/explore/lattice_instance.py::ladder": "rungs, not configurations",
    "model_checks/explore/lattice_lru.py::request": "rungs, not configurations",
    "model_checks/explore/lattice_profiles.py::<module>": "rungs, not configurations",
    "model_checks/explore/command.py::cell_ladder": "explorer shapes, not configurations",
    "model_checks/smt/results.py::_found_in": "Z3's bounds, not a configuration",
    "model_checks/smt/runner.py::_in_smaller_instance": "Z3's bounds, not a configuration",
    "model_checks/kernel/instance.py::matrix_instance":
        "the matrix's family at other unfinished requests (a family, not a configuration)",
    "benchmarks/bench_wire.py": "a benchmark's fixture",
    "benchmarks/bench_vllm_fix.py": "a benchmark's fixture",
    "benchmarks/bench_resend.py": "a benchmark's fixture",
}
"""Where an instance may be built outside `BUILDER`: "path" for a whole module, or
"path::function" (the innermost enclosing function, `<module>` for module level)."""


def _sources() -> Iterator[tuple[str, str]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path.read_text()


def _name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else "")


def builds_instance(call: ast.Call) -> bool:
    """A `Config(...)` or `Instance(...)` call, or a `replace(...)` setting an instance
    field."""
    name = _name(call)
    return name in BUILT or (name == "replace" and any(
        k.arg in INSTANCE_FIELDS for k in call.keywords))


class _Sites(ast.NodeVisitor):
    """Every instance built in one module, as (line, innermost enclosing function)."""

    def __init__(self) -> None:
        self.scope = ["<module>"]
        self.found: list[tuple[int, str]] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        if builds_instance(node):
            self.found.append((node.lineno, self.scope[-1]))
        self.generic_visit(node)


def unlisted_builds(path: str, source: str, allowed: dict[str, str] = ALLOWED) -> list[str]:
    """Every instance `source` builds outside `BUILDER` and `allowed`, as "path:line in
    function"."""
    if path == BUILDER:
        return []
    sites = _Sites()
    sites.visit(ast.parse(source, path))
    return [f"{path}:{line} in {scope}" for line, scope in sites.found
            if path not in allowed and f"{path}::{scope}" not in allowed]


def test_instances_are_built_by_the_builder_alone() -> None:
    found = [site for path, source in _sources() for site in unlisted_builds(path, source)]
    assert not found, ("instances built outside spec/instances.py (state a family there, or "
                       f"name the place in ALLOWED with its reason): {found}")


def test_every_allowed_place_still_builds_one() -> None:
    """An entry whose place no longer builds an instance is stale: removed, it cannot hide
    a new one."""
    used = set()
    for path, source in _sources():
        sites = _Sites()
        sites.visit(ast.parse(source, path))
        for _, scope in sites.found:
            used |= {path, f"{path}::{scope}"}
    assert sorted(set(ALLOWED) - used) == []
    assert all(reason for reason in ALLOWED.values())


def test_a_planted_checker_building_its_own_instance_is_found() -> None:
    planted = (
        "from dataclasses import replace\n"
        "import dataclasses\n"
        "def my_instance(variant):\n"
        "    return Config(identities=('a',), budget=2, variant=variant)\n\n"
        "def fewer(config):\n"
        "    return dataclasses.replace(config, max_retries=1)\n\n"
        "def renamed(config):\n"
        "    return replace(config, variant=None)\n\n"
        "SMALL = Instance(('a',), 2, 1, 1, 0, 1)\n"
    )
    assert unlisted_builds("model_checks/explore/mine.py", planted) == [
        "model_checks/explore/mine.py:4 in my_instance",
        "model_checks/explore/mine.py:7 in fewer",
        "model_checks/explore/mine.py:12 in <module>",
    ]
    assert unlisted_builds(BUILDER, planted) == []
    allowed = {"model_checks/explore/mine.py::fewer": "planted"}
    assert len(unlisted_builds("model_checks/explore/mine.py", planted, allowed)) == 2
