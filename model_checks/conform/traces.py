"""Every failure of a conformance run, written so that it replays.

With `--json PATH` (say `build/conform/records.json`), beside the records:

- `records.disagreement-N.trace.json`: the N-th disagreement (a regression included), the
  shrunk script as an ITF trace of the spec (`model_checks.kernel.itf`; its metadata's `property`
  is `disagreement`, its `conformance` names the case and the observation that differed), and
  `records.disagreement-N.trace.txt` beside it: the report and the step table in the one
  trace notation;
- `records.<ID>.trace.json` (and `.trace.txt`): the shortest trace on which the
  implementation broke property ID (an inherited weakness or a regression).

`python -m model_checks conform --adapter ... --replay FILE` runs any of them in lockstep
against the implementation (`report.replay_trace`); `python -m model_checks replay FILE` runs
them on the spec alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from model_checks.conform.lru_lockstep import spec_trace
from model_checks.conform.lru_lockstep.run import Outcome, PropertyBroken
from model_checks.kernel import itf, lru_notation
from model_checks.kernel.trace_file import trace_to_json, write_trace
from model_checks.kernel.verdict_records import CONFORMANCE, Verdict, VerdictRecord, write_records

DISAGREEMENT = "disagreement"
"""`#meta.property` of a disagreement trace (no property of the registry is re-checked on
replay; the lockstep against the implementation is)."""


@dataclass
class TracePaths:
    """The files written: per finding (in order) and per broken property."""

    findings: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)


def _stem(json_path: Path, name: str) -> Path:
    return json_path.with_name(f"{json_path.stem}.{name}.trace.json")


def write_failure_traces(json_path: Path, outcome: Outcome,
                         broken: dict[str, PropertyBroken]) -> TracePaths:
    """The JSON trace and its text form for every disagreement and broken property."""
    paths = TracePaths()
    for number, finding in enumerate(outcome.findings, start=1):
        found = finding.disagreement
        trace = spec_trace(finding.config, found.actions[: found.step])
        if trace is None:
            continue
        path = _stem(json_path, f"{DISAGREEMENT}-{number}")
        data = trace_to_json(trace, property_id=DISAGREEMENT, step=found.step,
                             reason=str(found), checker=CONFORMANCE.record)
        itf.project(data)["conformance"] = {"where": finding.where,
                                             "caught_by": found.caught_by,
                                             "served": found.served}
        write_trace(path, data)
        path.with_suffix(".txt").write_text(
            f"{finding.where}\n{found.report()}\n\nthe spec's steps:\n"
            f"{lru_notation.step_text(trace)}\nnotation: docs/notation.md\n")
        paths.findings.append(str(path))
    for prop, found_prop in sorted(broken.items()):
        b = found_prop.broken
        trace = spec_trace(found_prop.config, b.actions)
        if trace is None:
            continue
        path = _stem(json_path, prop)
        data = trace_to_json(trace, property_id=prop, step=len(trace.steps), reason=b.reason,
                             checker=CONFORMANCE.record)
        itf.project(data)["conformance"] = {"where": found_prop.where, "served": b.served}
        write_trace(path, data)
        path.with_suffix(".txt").write_text(
            f"{prop} broken by the implementation in {found_prop.where} at step {b.step}: "
            f"{b.reason}\n{lru_notation.step_text(trace)}\nnotation: docs/notation.md\n")
        paths.properties[prop] = str(path)
    return paths


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
