"""The implementation's safety verdicts: the summary lines, the replayable trace files, the
shrinking of a required property's trace, and `--replay` of one trace file.

A property is *broken by the implementation* when its monitor on the implementation's own
observations fires (S1 on tensor values, S2 on byte counts, S3 on faults, L1-L4 on the
replies and messages it produced), or, for S4 and H1, when the spec's verdict on a trace the
implementation matched step for step breaks it. That is reported also where the spec breaks
the property too (the variant's weakness is then the implementation's, which is what a
maintainer asking "is my cache safe" needs to hear).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from model_checks.conform.adapter import Adapter
from model_checks.conform.lockstep import (
    SPEC_JUDGED,
    Disagreement,
    EngineFactory,
    Lockstep,
    run_actions,
    spec_trace,
    steps_text,
)
from model_checks.conform.run import Outcome, PropertyBroken
from model_checks.simulate.counterexample import (
    BadTraceFile,
    replay_file,
    trace_to_json,
    write_trace,
)
from spec import Config, registry
from spec.transitions import Action

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_HARNESS = 0, 1, 2, 3


def safety_lines(
    outcome: Outcome,
    broken: dict[str, PropertyBroken],
    required: frozenset[str],
    trace_paths: dict[str, str],
    adapter_path: str,
) -> list[str]:
    """Per property: kept or broken by the implementation, with the trace where broken."""
    lines = [f"safety of the implementation, per property (its own observations; "
             f"{' and '.join(SPEC_JUDGED)} on the agreed trace), over "
             f"{' '.join(outcome.checked) or 'no variant'}:"]
    for prop in registry():
        mark = " [required]" if prop.id in required else ""
        found = broken.get(prop.id)
        if found is None:
            lines.append(f"  {prop.id} {prop.title}: kept{mark}")
            continue
        b = found.broken
        also = "the spec breaks it too" if b.spec_too else "the spec keeps it"
        on = " ".join(v for v, p in sorted(outcome.broken) if p == prop.id)
        lines.append(f"  {prop.id} {prop.title}: BROKEN{mark} on {on}; shortest in "
                     f"{found.where} at step {b.step} ({also}): {b.reason}")
        lines += ["  " + line for line in steps_text(b.actions, b.step)]
        if prop.id in trace_paths:
            lines.append(f"      replay against the implementation: python -m model_checks "
                         f"conform --adapter {adapter_path} --replay {trace_paths[prop.id]}")
    return lines


def write_broken_traces(json_path: Path, broken: dict[str, PropertyBroken]) -> dict[str, str]:
    """One replayable trace file per broken property, beside the records file."""
    paths: dict[str, str] = {}
    for prop, found in sorted(broken.items()):
        trace = spec_trace(found.config, found.broken.actions)
        if trace is None:
            continue
        path = json_path.with_name(f"{json_path.stem}.{prop}.trace.json")
        data = trace_to_json(trace, property_id=prop, step=len(trace.steps),
                             reason=found.broken.reason, checker="conformance")
        write_trace(path, data)
        paths[prop] = str(path)
    return paths


class PropertyShrinker:
    """Greedy deletion of actions (single, then pairs, then blocks of four), keeping a
    candidate only if it is a valid spec trace on which the implementation still breaks the
    property, earlier."""

    def __init__(self, adapter: Adapter, engine_factory: EngineFactory | None,
                 budget: int = 200) -> None:
        self.adapter = adapter
        self.engine_factory = engine_factory
        self.budget = budget

    def shrink(self, prop: str, found: PropertyBroken) -> PropertyBroken:
        best = found
        actions = list(found.broken.actions)
        tries, changed = 0, True
        while changed and tries < self.budget:
            changed = False
            for width in (1, 2, 4):
                for index in range(len(actions) - width, -1, -1):
                    if tries >= self.budget or index + width > len(actions):
                        continue
                    tries += 1
                    candidate = actions[:index] + actions[index + width:]
                    again = self._broken(found.config, prop, candidate)
                    if again is not None and again.broken.step < best.broken.step:
                        best = replace(again, where=found.where)
                        actions, changed = list(again.broken.actions), True
        return best

    def _broken(self, config: Config, prop: str,
                actions: Sequence[Action]) -> PropertyBroken | None:
        if spec_trace(config, actions) is None:
            return None
        try:
            run = run_actions(config, self.adapter, actions, settle=False,
                              engine_factory=self.engine_factory)
            found = run.broken
        except Disagreement as disagreement:
            found = disagreement.broken
        if prop not in found:
            return None
        return PropertyBroken("", config, found[prop])


def replay_trace(adapter: Adapter, path: Path, engine_factory: EngineFactory | None,
                 required: frozenset[str], adapter_path: str) -> int:
    """`conform --replay TRACE`: the trace's actions in lockstep against the implementation
    (not settled: the file is the whole run). Exit codes as the command's."""
    try:
        replayed = replay_file(path)
    except BadTraceFile as error:
        print(f"error: --replay: {error}", file=sys.stderr)
        return EXIT_USAGE
    config = replayed.trace.config
    if not adapter.supports(config.variant.name):
        print(f"error: --replay: adapter {adapter.name} does not support "
              f"{config.variant.name}", file=sys.stderr)
        return EXIT_USAGE
    actions = [s.action for s in replayed.trace.steps]
    print(f"replaying {path} ({config.variant.name}, {len(actions)} spec steps) in lockstep "
          f"against {adapter.name}")
    run: Lockstep | None = None
    try:
        run = run_actions(config, adapter, actions, settle=False, engine_factory=engine_factory)
        found, failure = run.broken, None
    except Disagreement as disagreement:
        found, failure = disagreement.broken, disagreement
    if failure is not None:
        print(failure.report())
    else:
        print(f"every step agreed ({len(run.actions) if run else 0} lockstep steps)")
    for prop in registry():
        if prop.id in found:
            b = found[prop.id]
            print(f"  {prop.id}: BROKEN by the implementation at step {b.step}: {b.reason}")
    if failure is not None or required.intersection(found):
        return EXIT_FAIL
    return EXIT_OK
