"""The LRU binding's conformance trace files (the key-replicated spec's ITF traces,
`model_checks.kernel.trace_file`): every failure of a run written so that it replays, and
`conform --replay TRACE`, one trace file followed step for step against an implementation.

With `--json PATH` (say `build/conform/records.json`), beside the records:
`records.disagreement-N.trace.json`, the N-th disagreement (a regression included) as the
spec's trace of its shrunk script (its metadata's `property` is `disagreement`, its
`conformance` names the case and the observation that differed), and
`records.<ID>.trace.json`, the shortest trace on which the implementation broke property ID;
each with its `.trace.txt` (the report and the step table in the one trace notation).
`conform --adapter ... --replay FILE` runs any of them (or a lattice witness) against the
implementation, `python -m model_checks replay FILE` on the spec alone.

The replay is exact: every spec step of the file is one implementation step (an atomic
update's item steps, consecutive in the file, are its one `update`; a round trip the file's
case drove through the implementation's end-to-end call is that call again). A step it cannot
drive stops the replay there, named with the reason, with its own result and exit code
(`exits.EXIT_NOT_FOLLOWED`): a trace that was not followed is never reported as kept.
Under another variant (`--replay TRACE --variant V`): the file's actions are a script for V
(the spec re-derives every state under V; an action V does not enable there is skipped), and
the channel is settled at the end, so a witness of one variant is asked of an implementation
of another: 0 when nothing it records or requires breaks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from model_checks.conform.adapter import Adapter, supports
from model_checks.conform.exits import (
    EXIT_FAIL,
    EXIT_NOT_FOLLOWED,
    EXIT_OK,
    EXIT_WEAKNESS,
)
from model_checks.conform.lru_lockstep.disagreement import Broken, Disagreement
from model_checks.conform.lru_lockstep.implementation import EngineFactory
from model_checks.conform.lru_lockstep.run import Outcome, PropertyBroken
from model_checks.conform.lru_lockstep.runs import Driving, not_followed, replay, spec_trace
from model_checks.conform.notation import wrap
from model_checks.kernel import itf, lru_notation, result_files
from model_checks.kernel.exits import usage_exit
from model_checks.kernel.trace_file import (
    BadTraceFile,
    Replayed,
    replay_file,
    trace_to_json,
    write_trace,
)
from model_checks.kernel.verdict_records import CONFORMANCE, Verdict, VerdictRecord, write_records
from spec import Config, Trace, registry, variant_named
from spec.drift import Environment
from spec.transitions import Action

Emit = Callable[[Sequence[tuple[str, str, Config, Sequence[Action], str, object]]], None]
"""`--emit-pytest`'s writer: failures as (name, where, configuration, actions, caught by,
the spec's side)."""


def _conformance_meta(path: Path) -> dict[str, Any]:
    """The `conformance` metadata of a trace conform wrote ({} for any other trace file)."""
    data = result_files.read(path)
    meta = itf.project(data) if itf.is_trace(data) else data.get("#meta", {})
    found = meta.get("conformance", {}) if isinstance(meta, dict) else {}
    return found if isinstance(found, dict) else {}


def _load(adapter: Adapter, path: Path, variant: str | None
          ) -> tuple[Replayed, bool] | str:
    """The replayed file and whether its case was served, or the usage error."""
    try:
        replayed = replay_file(path)
    except BadTraceFile as error:
        return f"--replay: {error}"
    name = variant or replayed.trace.config.variant.name
    if not supports(adapter, name):
        return f"--replay: adapter {adapter.name} does not support {name}"
    return replayed, bool(_conformance_meta(path).get("served", False))


def replay_trace(adapter: Adapter, path: Path, engine_factory: EngineFactory | None,
                 required: frozenset[str], emit: Emit | None = None,
                 variant: str | None = None) -> int:
    """The trace's steps in lockstep against the implementation (not settled: the file is
    the whole run), after its step table. Exit 1 when it reproduces a disagreement or a
    regression; 4 when it reproduces the property the file records (or a `--require`d one)
    broken as the variant breaks it; 5 when a step cannot be driven (nothing after it
    judged); 0 when every step was followed and agreed and none of those broke; 2 when the
    file cannot be read or the adapter lacks its variant. `emit` (`--emit-pytest`) gets the
    replay's disagreement and broken properties. `variant` other than the file's: the
    actions as a script under it (`replay_under`)."""
    loaded = _load(adapter, path, variant)
    if isinstance(loaded, str):
        return usage_exit(loaded)
    replayed, served = loaded
    if variant is not None and variant != replayed.trace.config.variant.name:
        return replay_under(adapter, path, replayed, variant, engine_factory, required)
    config, trace = replayed.trace.config, replayed.trace
    actions = [s.action for s in trace.steps]
    recorded = replayed.property_id
    how = ", its round trips through the end-to-end call (engine in this process)" if (
        served) else ""
    print("\n".join(wrap([
        f"replaying {path} ({config.variant.name}, environment "
        f"{Environment.of(config.environment).text}, {len(actions)} spec steps; it records "
        f"{recorded}) in lockstep against {adapter.name}{how}"])))
    print(step_table(trace))
    if config.engines != 1:
        stopped = not_followed(1, None, f"the configuration has {config.engines} engines "
                               "behind a router; the adapter interface drives one engine")
        return _not_followed(adapter, 1, str(stopped), len(actions))
    driving = Driving(settle=False, served=served, exact=True,
                      engine_factory=None if served else engine_factory)
    outcome = replay(config, adapter, actions, driving)
    if outcome.not_driven is not None:
        return _not_followed(adapter, outcome.steps + 1, outcome.not_driven, len(actions))
    found, failure = outcome.broken, outcome.disagreement
    if failure is not None:
        print(failure.report())
    else:
        print(f"followed: every one of the {len(actions)} spec steps driven and agreed")
    _print_broken(found)
    if emit is not None:
        where = f"the replay of {path.name}"
        failures = [("conform_replay_disagreement", where, config,
                     failure.actions[:failure.step], failure.caught_by, failure.spec_side)
                    ] if failure is not None else []
        failures += [(f"conform_replay_{p}", where, config, b.actions, p, None)
                     for p, b in sorted(found.items())]
        emit(failures)
    return _result(config.variant.name, recorded, required, found, failure, len(actions))


def replay_under(adapter: Adapter, path: Path, replayed: Replayed, variant: str,
                 engine_factory: EngineFactory | None, required: frozenset[str]) -> int:
    """The trace's actions as a script under `variant`, settled, in lockstep against the
    implementation: exit 1 on a disagreement, 4 if a property the file records or
    `required` breaks, else 0."""
    trace = replayed.trace
    config = dataclasses.replace(trace.config, variant=variant_named(variant))
    actions = [s.action for s in trace.steps]
    print("\n".join(wrap([
        f"replaying {path} ({trace.config.variant.name}, environment "
        f"{Environment.of(config.environment).text}, {len(actions)} spec steps) under "
        f"{variant} against {adapter.name}: its actions as a script ({variant} re-derives "
        "every state; an action it does not enable there is skipped), then the channel "
        "settled"])))
    outcome = replay(config, adapter, actions,
                     Driving(settle=True, engine_factory=engine_factory))
    found, failure, driven = outcome.broken, outcome.disagreement, outcome.steps
    if failure is None:
        print(f"followed: {driven} spec steps driven and agreed")
    else:
        driven = 0
        print(failure.report())
    _print_broken(found)
    return _result(variant, replayed.property_id, required, found, failure, driven)


def _not_followed(adapter: Adapter, step: int, why: str, total: int) -> int:
    """The replay stopped at `step` (`why`, naming it): nothing after it judged."""
    print("\n".join(wrap([f"NOT FOLLOWED at step {step} of {total}: {why}"])))
    print(f"RESULT: NOT FOLLOWED: step {step} of {total} cannot be driven on "
          f"{adapter.name} (exit {EXIT_NOT_FOLLOWED})")
    return EXIT_NOT_FOLLOWED


def _print_broken(found: dict[str, Broken]) -> None:
    for prop in registry():
        if prop.id in found:
            b = found[prop.id]
            how = "as the spec does" if b.spec_too else "where the spec keeps it"
            print("\n".join(wrap([f"  {prop.id}: BROKEN by the implementation at step "
                                  f"{b.step}, {how}: {b.reason}"])))


def _result(variant: str, recorded: str, required: frozenset[str], found: dict[str, Broken],
            failure: Disagreement | None, total: int) -> int:
    """The RESULT line and the exit code of a replay that was followed (or disagreed)."""
    wanted = required | ({recorded} if recorded in {p.id for p in registry()} else set())
    if failure is not None:
        what = "REGRESSION" if failure.caught_by in found else "DISAGREEMENT"
        print(f"RESULT: REPRODUCED {what}: caught by {failure.caught_by} at step "
              f"{failure.step} (exit {EXIT_FAIL})")
        return EXIT_FAIL
    broke = sorted(wanted.intersection(found))
    if broke:
        print(f"RESULT: REPRODUCED INHERITED WEAKNESS: {', '.join(broke)} broken as "
              f"{variant} breaks it (exit {EXIT_WEAKNESS})")
        return EXIT_WEAKNESS
    said = ", ".join(sorted(wanted)) or "no property asked for"
    print(f"RESULT: NOT REPRODUCED: all {total} steps followed and agreed; kept on this "
          f"trace: {said} (exit {EXIT_OK})")
    return EXIT_OK


def step_table(trace: Trace) -> str:
    """The spec's step table in the one notation, one step per line and its state after it
    on the next, each within 100 columns (`lru_notation.step_rows`; legend: docs/notation.md)."""
    lines = ["  #  action, then the state after it (shadow | P1 | to P1 | to P0 | P1 did)"]
    for row in lru_notation.step_rows(trace):
        number, action, *columns = row
        lines.append(f"{number:>3}  {action}")
        state = "  ".join(f"{h}: {c}" for h, c in zip(lru_notation.HEADERS[2:], columns,
                                                         strict=True) if c)
        lines.append(f"       {state}")
    line = lru_notation.processings(trace.final)
    return "\n".join(wrap([*lines, *([f"  {line}"] if line else [])]))


DISAGREEMENT = "disagreement"
"""`#meta.property` of a disagreement trace (no property of the registry is re-checked on
replay; the lockstep against the implementation is)."""


@dataclass
class TracePaths:
    """The files written: per finding (in order) and per broken property."""

    findings: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)


def write_failure_traces(json_path: Path, outcome: Outcome,
                         broken: dict[str, PropertyBroken]) -> TracePaths:
    """The JSON trace and its text form for every disagreement and broken property."""
    paths = TracePaths()
    for number, finding in enumerate(outcome.findings, start=1):
        found = finding.disagreement
        trace = spec_trace(finding.config, found.actions[: found.step])
        if trace is not None:
            paths.findings.append(_write(
                json_path, f"{DISAGREEMENT}-{number}", trace,
                trace_to_json(trace, property_id=DISAGREEMENT, step=found.step,
                              reason=str(found), checker=CONFORMANCE.record),
                {"where": finding.where, "caught_by": found.caught_by, "served": found.served},
                f"{finding.where}\n{found.report()}\n\nthe spec's steps:"))
    for prop, found_prop in sorted(broken.items()):
        b = found_prop.broken
        trace = spec_trace(found_prop.config, b.actions)
        if trace is not None:
            paths.properties[prop] = _write(
                json_path, prop, trace,
                trace_to_json(trace, property_id=prop, step=len(trace.steps), reason=b.reason,
                              checker=CONFORMANCE.record),
                {"where": found_prop.where, "served": b.served},
                f"{prop} broken by the implementation in {found_prop.where} at step {b.step}: "
                f"{b.reason}")
    return paths


def _write(json_path: Path, name: str, trace: Trace, data: dict[str, Any],
           conformance: dict[str, object], heading: str) -> str:
    """`data` with its `conformance` metadata as `records.<name>.trace.json` beside
    `json_path`, and its text (`heading`, then `trace`'s step table) as its `.txt`."""
    path = json_path.with_name(f"{json_path.stem}.{name}.trace.json")
    itf.project(data)["conformance"] = conformance
    write_trace(path, data)
    path.with_suffix(".txt").write_text(
        f"{heading}\n{lru_notation.step_text(trace)}\nnotation: docs/notation.md\n")
    return str(path)


def write_run_records(path: Path, outcome: Outcome, paths: TracePaths | None,
                      unchecked: list[dict[str, object]] | None = None) -> None:
    """The run's verdict records, each failing one pointing at its trace file; beside them
    `refusals` (the rejections run through the front end's own refusal path), `choices`
    (the choices the spec allows that the implementation was seen making) and `unchecked`
    (the optional parts the adapter lacks, `unchecked.Part.to_json`)."""
    records = list(outcome.records)
    if paths is not None and paths.findings:
        first = paths.findings[0]
        records = [replace(r, counterexample_path=first)
                   if r.property == "lockstep" and r.counterexample_length else r
                   for r in records]
    properties = paths.properties if paths is not None else {}
    safety = [replace(r, counterexample_path=properties.get(r.property))
              if r.verdict is Verdict.COUNTEREXAMPLE else r
              for r in outcome.safety_records(outcome.seconds)]
    if outcome.steps == 0 and outcome.harness is None:
        records.append(VerdictRecord(CONFORMANCE.record, "none", (), "lockstep", Verdict.UNKNOWN, 0,
                                     "steps", outcome.seconds,
                                     detail=f"{outcome.adapter}: nothing checked (0 steps)"))
    extra: dict[str, object] = {"refusals": outcome.refusals,
                                "choices": dict(outcome.choices)}
    if unchecked is not None:
        extra["unchecked"] = unchecked
    write_records(path, records + safety, extra)
