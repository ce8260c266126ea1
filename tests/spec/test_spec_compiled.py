"""The optional mypyc build of spec/ (`scripts/compile-spec`, in build/mypyc/) gives the same
records as the pure-Python package: the explorer's graph figures and every judgement on a
sample of cells, and the naive search's states and enabled lists, each in breadth-first
order. Skipped, saying so, when the build is absent; a stale build (spec/ changed since) is
an error, since running on it would check an older spec."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "mypyc"
CELLS = ("V2_D3", "V0_D2_D4", "V3_D1_D5", "V2_D7_D10")

# Run in a fresh interpreter, from a folder that holds no package, so that PYTHONPATH alone
# decides which spec is imported. argv: cells, then "mutant" to run a known-bad variant.
RECORDS = """
import hashlib, json, sys
from collections import deque
from dataclasses import replace
import spec, spec.state
from model_checks.explore.graph import build
from model_checks.explore.instance import explore_config
from model_checks.explore.judge import judge_all
from spec import enabled, initial, step, variant_named
out = {"compiled": spec.state.__file__.endswith((".so", ".pyd")), "cells": {}}
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
    graph = build(config)
    out["cells"][label] = {
        "naive": [len(seen), digest.hexdigest()],
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


def _sources() -> str:
    lines = []
    for path in sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "spec").rglob("*.py")):
        lines.append(f"{hashlib.sha256((ROOT / path).read_bytes()).hexdigest()}  {path}\n")
    return "".join(lines)


@pytest.fixture(scope="module")
def compiled_build() -> Path:
    if not (BUILD / "SOURCES").exists():
        pytest.skip("no compiled build of spec/: run `bash scripts/compile-spec` (optional; "
                    "CI's .ci/run builds it)")
    assert (BUILD / "SOURCES").read_text() == _sources(), (
        "build/mypyc was compiled from another version of spec/: rerun "
        "`bash scripts/compile-spec`")
    return BUILD


def test_compiled_and_pure_spec_give_identical_records(compiled_build: Path,
                                                       tmp_path: Path) -> None:
    pure, compiled = _records(tmp_path, False), _records(tmp_path, True)
    assert pure["compiled"] is False and compiled["compiled"] is True
    assert compiled["cells"] == pure["cells"]


def test_the_comparison_tells_a_different_spec_apart(compiled_build: Path,
                                                     tmp_path: Path) -> None:
    """Known-bad: the compiled side run on a mutant (invalidation flipped) differs."""
    pure, mutant = _records(tmp_path, False), _records(tmp_path, True, "mutant")
    assert mutant["cells"] != pure["cells"]
