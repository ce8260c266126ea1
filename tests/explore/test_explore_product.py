"""Judging as the search goes: the joint product search of every monitor gives each monitor
what a search of the product with that monitor alone gives, and the state properties checked
as the search numbers states give what a pass over the stored states gives."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import pytest

from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lattice_instance import lattice_config
from model_checks.explore.lattice_profiles import BASE_RUNG
from model_checks.explore.lru_judging.judge import Status, judge, judge_all
from model_checks.explore.lru_judging.monitors import MONITORS, Monitor, Step
from model_checks.explore.lru_judging.product import Verdict, search_product
from spec import V1, V2, V3, Config, Kind, State, by_id, registry, variant_named
from spec.properties import declare as declared

CONFIGS = [
    explore_config(V1, ("D6",), max_requests=2),
    explore_config(V2, ("D3",), max_requests=2),
    explore_config(V2, ("D1", "D7"), max_requests=2),
    explore_config(variant_named("V0"), ("D5",), max_requests=2),
    # identity symmetry, and L3 broken while L1 and L2 hold: a joint search that let a
    # monitor's second violation count again stopped early here and lost states
    lattice_config(V1, ("D1", "D7"), BASE_RUNG),
    lattice_config(V3, ("D2", "D7"), BASE_RUNG),
]


def _alone(graph: Graph, monitor: Monitor) -> Verdict:
    """The product of the graph with one monitor, searched breadth-first on its own: the
    reference the joint search must reproduce (the explorer's search before the joint one)."""
    start = (0, monitor.start)
    came: dict[tuple[int, object], tuple[tuple[int, object], object, object] | None] = {
        start: None}
    queue, premise = deque([start]), False
    while queue:
        node = queue.popleft()
        index, memory = node
        for position, (action, target) in enumerate(graph.edges[index]):
            renaming = graph.renaming(index, position)
            step = monitor_step(graph, index, position)
            premise = premise or (monitor.premise(step) if monitor.obligation is None
                                  else monitor.obligation(step, memory))
            after, reason = monitor.move(graph.config, step, memory)
            if reason is not None:
                path = [(action, None)]
                link = came[node]
                while link is not None:
                    node, via, renamed = link
                    path.append((via, renamed))
                    link = came[node]
                return Verdict(tuple(path[::-1]), reason, premise, 0)  # type: ignore[arg-type]
            if renaming is not None:
                after = monitor.rename(after, dict(renaming))
            if (target, after) not in came:
                came[(target, after)] = (node, action, renaming)
                queue.append((target, after))
    return Verdict(None, "", premise, len(came))


def monitor_step(graph: Graph, index: int, position: int) -> Step:
    from model_checks.explore.lru_judging.monitors import observe

    action = graph.edges[index][position][0]
    return observe(graph.states[index], action, graph.real_successor(index, position))


@pytest.mark.parametrize("config", CONFIGS, ids=["V1-D6", "V2-D3", "V2-D1+D7", "V0-D5",
                                                  "lattice-V1-D1+D7", "lattice-V3-D2+D7"])
def test_the_joint_search_gives_each_monitor_its_own_search(config: Config) -> None:
    graph = build(config)
    monitors = [MONITORS[p] for p in sorted(MONITORS)]
    joint = search_product(graph, monitors)
    for monitor, verdict in zip(monitors, joint, strict=True):
        assert verdict == _alone(graph, monitor), monitor.property_id


def _flag_every_step(config: Config, step: Step, memory: object) -> tuple[object, str | None]:
    """Flags every step but a quiet one (which, as every monitor, it leaves alone)."""
    return memory, None if step.quiet else "flagged"


def test_a_monitor_that_flags_every_step_does_not_disturb_the_others() -> None:
    """A planted monitor breaks at the first step that is not quiet; the real monitors,
    searched beside it, still give their own verdicts."""
    graph = build(explore_config(V2, ("D3",), max_requests=2))
    planted = Monitor("L9", 0, _flag_every_step, lambda step: True, "never")
    monitors = [planted, *(MONITORS[p] for p in sorted(MONITORS))]
    flagged, *rest = search_product(graph, monitors)
    assert flagged.steps is not None and flagged.reason == "flagged"
    assert flagged == _alone(graph, planted)
    for monitor, verdict in zip(monitors[1:], rest, strict=True):
        assert verdict == _alone(graph, monitor)


def test_every_judgement_is_the_same_with_and_without_the_search_time_checks() -> None:
    for config in CONFIGS[:4]:
        checked = judge_all(build(config))
        passes = judge_all(build(config, GraphOptions(checks=())))
        assert checked == passes
        assert build(config).checks is not None and build(config,
                                                          GraphOptions(checks=())).checks is None


def _two_entries(config: Config, state: State) -> list[str]:
    """P1's receiver never holds two entries at once (a fixture: it breaks as soon as two
    items are cached)."""
    return [f"P1 holds {len(state.receiver)}"] if len(state.receiver) >= 2 else []


@pytest.fixture
def planted() -> Iterator[str]:
    registry()
    declared.state_property("S8", "at most one entry (fixture)", Kind.SAFETY,
                             statement=str(_two_entries.__doc__))(_two_entries)
    try:
        yield "S8"
    finally:
        declared.withdraw("S8")


def test_a_planted_state_property_is_broken_where_a_pass_breaks_it(planted: str) -> None:
    """The search checks a property declared before it; a property declared after the
    search is judged by a pass: both give the pass's shortest counterexample."""
    config = explore_config(V3, (), max_requests=2)
    graph = build(config)
    assert graph.checks is not None and planted in graph.checks.first
    found = judge(graph, by_id(planted))
    assert found.status is Status.COUNTEREXAMPLE
    assert found == judge(build(config, GraphOptions(checks=())), by_id(planted))
    index, _ = graph.checks.first[planted]
    assert len(found.actions) == graph.depth[index]


def test_a_property_declared_after_the_search_is_judged_by_a_pass() -> None:
    config = explore_config(V3, (), max_requests=2)
    graph = build(config)
    registry()
    declared.state_property("S8", "at most one entry (fixture)", Kind.SAFETY,
                             statement=str(_two_entries.__doc__))(_two_entries)
    try:
        prop = by_id("S8")
        assert graph.checks is not None and not graph.checks.covers(prop)
        assert judge(graph, prop).status is Status.COUNTEREXAMPLE
    finally:
        declared.withdraw("S8")


def _quiet_broken(graph: Graph, monitor: Monitor, memories: list[object]) -> list[str]:
    """Where `monitor` moves, flags or meets its premise on a quiet step of `graph` (the joint
    search skips monitors on those), for each of `memories`."""
    found = []
    for index in range(graph.size):
        for position in range(len(graph.edges[index])):
            step = monitor_step(graph, index, position)
            if not step.quiet:
                continue
            for memory in memories:
                if monitor.move(graph.config, step, memory) != (memory, None):
                    found.append(f"{index}/{position}: moves")
                premise = (monitor.premise(step) if monitor.obligation is None
                           else monitor.obligation(step, memory))
                if premise:
                    found.append(f"{index}/{position}: premise")
    return found


def _memories(graph: Graph, monitor: Monitor) -> list[object]:
    """Memories the monitor reaches along the graph's tree paths (a sample of its own)."""
    seen = {0: monitor.start}
    for index in range(1, graph.size):
        parent = graph.parent[index]
        position = next(p for p, (_, t) in enumerate(graph.edges[parent]) if t == index)
        step = monitor_step(graph, parent, position)
        seen[index] = monitor.move(graph.config, step, seen[parent])[0]
    return list(dict.fromkeys(seen.values()))[:20]


def test_every_monitor_leaves_a_quiet_step_alone() -> None:
    """What the joint search's fast path assumes (`Step.quiet`), on every quiet edge of two
    graphs with the memories each monitor reaches; a planted monitor that counts every step
    breaks it."""
    for config in (explore_config(V1, ("D3",), max_requests=2), CONFIGS[4]):
        graph = build(config)
        for monitor in MONITORS.values():
            assert not _quiet_broken(graph, monitor, _memories(graph, monitor))
    counting = Monitor("L9", 0, lambda config, step, memory: (memory + 1, None),
                       lambda step: False, "never")
    assert _quiet_broken(build(CONFIGS[1]), counting, [0])
