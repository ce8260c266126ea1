"""Every spec value that crosses a process boundary (a sweep's tasks and results, a
distributed search's states) survives a pickle round trip, on the pure-Python packages and on
the compiled build (`scripts/compile-spec`) when it is fresh: variants, configurations,
environments, instances, states and what they hold, every action type, traces. mypyc's own
unpickling of a compiled frozen dataclass sets each field on the frozen object, which refuses;
the classes that would hit it pickle as their class called on their fields
(`spec.values.init_values`).

The sample: every variant, the configurations of cells that enable every drift source, and
every state and enabled action a breadth-first search reaches on each, walked down to the
values each holds; the test fails unless every action type is in it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from model_checks.kernel.compiled_build import status

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "mypyc"

# Run in a fresh interpreter, from a folder that holds no package, so that PYTHONPATH alone
# decides which spec is imported. Prints, as JSON, whether spec is compiled, the classes
# sampled, and each class whose sample does not come back equal (with the error).
ROUND_TRIP = """
import dataclasses, json, pickle
from collections import deque
import spec
from model_checks.explore.instance import explore_config
from spec import ACTION_TYPES, VARIANTS, Environment, initial, enabled, step
from spec.config import Content
from spec.designs.lru_design import LRU_FAMILY
from spec.instances import Cut, realise
from spec.trace import Step, Trace
samples = {}
def walk(value):
    if isinstance(value, (tuple, list, frozenset)):
        for inner in value:
            walk(inner)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        samples.setdefault(type(value), value)
        for f in dataclasses.fields(value):
            walk(getattr(value, f.name))
    elif type(value).__module__.startswith("spec"):
        samples.setdefault(type(value), value)
walk((LRU_FAMILY, Cut(identities=1), realise(LRU_FAMILY, frozenset(spec.ALL_DRIFT))))
configs = [explore_config(variant, ids, max_requests=2) for variant in VARIANTS for ids in (
    ("D1", "D7"), ("D2", "D4"), ("D3", "D6"), ("D5",), ("D8", "D9"), ("D10", "D11"))]
# a request naming one identity twice: the engine's receipt of its own payload
configs.append(dataclasses.replace(
    explore_config(VARIANTS[-1], ("D8", "D9"), max_requests=1), duplicates=True))
for config in configs:
    walk(Environment.of_config(config))
    walk(config)
    start = initial(config)
    seen, queue, path = {start}, deque([start]), []
    while queue and len(seen) < 3000:
        state = queue.popleft()
        walk(state)
        for action in enabled(config, state):
            walk(action)
            after = step(config, state, action)
            if after not in seen:
                seen.add(after)
                queue.append(after)
                if len(path) < 3 and state is start:
                    path.append(Step(action, after))
    walk(Trace(config, start, tuple(path[:1])))
failed = {}
for kind, value in samples.items():
    try:
        back = pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        if back != value or type(back) is not kind:
            failed[kind.__qualname__] = "not equal"
    except Exception as error:
        failed[kind.__qualname__] = repr(error)
print(json.dumps({
    "compiled": spec.__file__.endswith((".so", ".pyd")),
    "sampled": sorted(kind.__qualname__ for kind in samples),
    "actions": sorted(kind.__qualname__ for kind in ACTION_TYPES),
    "failed": failed,
}))
"""


def _round_trip(tmp_path: Path, compiled: bool, build: Path = BUILD) -> dict[str, object]:
    path = [str(build), str(ROOT)] if compiled else [str(ROOT)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    done = subprocess.run([sys.executable, "-c", ROUND_TRIP], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=True)
    found: dict[str, object] = json.loads(done.stdout)
    return found


def _check(found: dict[str, object], compiled: bool) -> None:
    assert found["compiled"] is compiled
    sampled, actions = found["sampled"], found["actions"]
    assert isinstance(sampled, list) and isinstance(actions, list)
    assert set(actions) <= set(sampled), "an action type the sample lacks"
    assert {"Variant", "Config", "Environment", "State", "Request", "Entry", "Trace", "Step",
            "Family", "Instance", "Cut", "Grown", "Sized"} <= set(sampled)
    assert found["failed"] == {}


def test_every_spec_value_round_trips_through_pickle(tmp_path: Path) -> None:
    _check(_round_trip(tmp_path, False), False)


def test_every_compiled_spec_value_round_trips_through_pickle(tmp_path: Path) -> None:
    if not (BUILD / "SOURCES").exists():
        pytest.skip("no compiled build of spec/: run `bash scripts/compile-spec` (optional; "
                    "CI's .ci/run builds it)")
    found = status(BUILD)
    assert found.fresh, found.why
    _check(_round_trip(tmp_path, True), True)
