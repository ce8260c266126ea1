"""The optional mypyc build of spec/ and of the explorer's per-state modules
(`scripts/compile-spec`, in build/mypyc/) gives the same records as the pure-Python
packages: the explorer's graph figures and every judgement on a sample of cells, with the
plain reductions and with ended requests forgotten and request slots renumbered, and the
naive search's states and enabled lists, each in breadth-first order. Skipped, saying so,
when the build is absent; a stale build (a source it was compiled from changed since, or a
module of spec/ it lacks) is an error, since running on it would check an older spec."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from model_checks.kernel.compiled_build import stale_sources, status

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "mypyc"
CELLS = ("V2_D3", "V0_D2_D4", "V3_D1_D5", "V2_D7_D10")

# Run in a fresh interpreter, from a folder that holds no package, so that PYTHONPATH alone
# decides which spec is imported. argv: cells, then "mutant" to run a known-bad variant.
RECORDS = """
import hashlib, json, sys
from collections import deque
from dataclasses import replace
import spec, spec.state, spec.transitions.front_end, spec.properties.safety
import model_checks.explore.search_core
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging.judge import judge_all
from spec import enabled, initial, step, variant_named
compiled = (spec.state, spec.transitions.front_end, spec.properties.safety,
            model_checks.explore.search_core)
out = {"compiled": [m.__file__.endswith((".so", ".pyd")) for m in compiled], "cells": {}}
for label in sys.argv[1].split(","):
    variant, *env = label.split("_")
    chosen = variant_named(variant)
    if sys.argv[2:] == ["mutant"]:
        chosen = replace(chosen, invalidates=not chosen.invalidates, name=chosen.name + "-m")
    config = explore_config(chosen, tuple(env), max_requests=2)
    digest, start = hashlib.sha256(), initial(config)
    seen, queue = {start}, deque([start])
    while queue:
        state = queue.popleft()
        actions = enabled(config, state)
        digest.update(repr((state, actions)).encode())
        for action in actions:
            after = step(config, state, action)
            if after not in seen:
                seen.add(after)
                queue.append(after)
    out["cells"][label] = {"naive": [len(seen), digest.hexdigest()]}
    for name, options in (("plain", GraphOptions()),
                          ("forget, slots", GraphOptions(forget=True, slots=True))):
        graph = build(config, options)
        out["cells"][label][name] = {
            "graph": [len(graph.states), graph.steps_taken, graph.diameter],
            "judgements": [[j.property_id, j.status.value, j.reason, repr(j.actions)]
                           for j in judge_all(graph)],
        }
print(json.dumps(out))
"""


def _records(tmp_path: Path, compiled: bool, *extra: str) -> dict[str, object]:
    path = [str(BUILD), str(ROOT)] if compiled else [str(ROOT)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    done = subprocess.run([sys.executable, "-c", RECORDS, ",".join(CELLS), *extra],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    records: dict[str, object] = json.loads(done.stdout)
    return records


@pytest.fixture(scope="module")
def compiled_build() -> Path:
    if not (BUILD / "SOURCES").exists():
        pytest.skip("no compiled build of spec/: run `bash scripts/compile-spec` (optional; "
                    "CI's .ci/run builds it)")
    found = status(BUILD)
    assert found.fresh, found.why
    return BUILD


def test_compiled_and_pure_spec_give_identical_records(compiled_build: Path,
                                                       tmp_path: Path) -> None:
    pure, compiled = _records(tmp_path, False), _records(tmp_path, True)
    assert pure["compiled"] == [False] * 4 and compiled["compiled"] == [True] * 4
    cells = pure["cells"]
    assert isinstance(cells, dict)
    assert all(cell["plain"] != cell["forget, slots"] for cell in cells.values())
    assert compiled["cells"] == pure["cells"]


EXPLORE = ("explore", "--variant", "V2", "--environment", "D1+D7", "--instance",
           "identities=2,requests=2,unfinished=2,items=1,retries=1,budget=2",
           "--forget-ended", "--symmetric-requests")
"""A command whose run breaks two properties (exit 4) and holds the others."""


def _explore(tmp_path: Path, compiled: bool) -> tuple[list[dict[str, object]], dict[str, str]]:
    """`python -m model_checks` + `EXPLORE` on the pure or the compiled packages: its records
    (CPU seconds left out, each trace named by its file) and its trace files, by name."""
    out = tmp_path / ("compiled" if compiled else "pure")
    path = [str(BUILD), str(ROOT)] if compiled else [str(ROOT)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), PYTHONSAFEPATH="1")
    done = subprocess.run([sys.executable, "-m", "model_checks", *EXPLORE, "--json",
                           f"{out}.json", "--out", str(out)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 4, done.stdout + done.stderr
    records = json.loads(Path(f"{out}.json").read_text())["records"]
    for record in records:
        del record["seconds"]
        if record["counterexample_path"]:
            record["counterexample_path"] = Path(record["counterexample_path"]).name
    return records, {p.name: p.read_text() for p in sorted(out.iterdir())}


def test_the_compiled_explore_command_gives_the_same_records_and_traces(
        compiled_build: Path, tmp_path: Path) -> None:
    """The command as a user runs it on the build (`PYTHONSAFEPATH`, so that `python -m`
    does not put the current folder first), with the options whose modules compile."""
    pure, compiled = _explore(tmp_path, False), _explore(tmp_path, True)
    assert pure[1] and compiled == pure


def test_the_comparison_tells_a_different_spec_apart(compiled_build: Path,
                                                     tmp_path: Path) -> None:
    """Known-bad: the compiled side run on a mutant (invalidation flipped) differs."""
    pure, mutant = _records(tmp_path, False), _records(tmp_path, True, "mutant")
    assert mutant["cells"] != pure["cells"]


def test_a_changed_or_missing_source_makes_the_build_stale() -> None:
    """Known-bad: SOURCES listing a wrong digest, or leaving a module of spec/ out."""
    path = "spec/machine.py"
    right = f"{hashlib.sha256((ROOT / path).read_bytes()).hexdigest()}  {path}"
    others = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(ROOT).as_posix()}"
              for p in sorted((ROOT / "spec").rglob("*.py")) if p != ROOT / path]
    assert stale_sources("\n".join([right, *others])) == []
    assert stale_sources("\n".join(["0" * 64 + "  " + path, *others])) == [f"{path} changed"]
    assert stale_sources("\n".join(others)) == [f"{path} is not in the build"]
