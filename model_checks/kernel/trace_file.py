"""The trace of the key-replicated spec as every checker writes and reads it: its ITF document
with the project's metadata (`model_checks.kernel.itf`), its replay on the spec, and a labelled step
table.

`trace_to_json` builds the document: the spec's states, each with the action that led to it,
and in `#meta["paired-caches"]` the full configuration (`config_to_json`: every field, the
variant by all its knobs), the checker, variant, environment, property, the step it broke at
and why, and where the fair scheduler took over (`fair_from`). `replay_data` rebuilds the
configuration and actions from a document, re-runs them on the spec, checks that every
recorded state is the one the spec computes, and re-checks the property (a file in the old
format, taken apart by `model_checks.kernel.legacy_trace`, is replayed too, with a line on stderr;
`upgraded` gives its ITF document); `table` prints the same table for a found and a replayed
trace.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from model_checks.kernel import itf, legacy_trace, lru_notation
from model_checks.kernel.itf import BadTraceFile
from model_checks.kernel.shipped import located
from model_checks.kernel.verdict_records import HYPOTHESIS
from spec import Config, Content, ItemSize, LruFlaw, MissHandling, Trace, Variant, by_id, run
from spec.designs.lru_design import LRU
from spec.drift import Environment, environment
from spec.transitions import Action, InvalidAction

__all__ = ["OPTIONAL_FIELDS", "OPTIONAL_KNOBS", "TAGGED", "BadTraceFile", "Replayed", "actions_of",
           "config_from_json", "config_of",
           "config_to_json", "replay_data", "replay_file", "table", "trace_to_json", "upgraded",
           "write_trace"]


TAGGED = LRU.trace_tags
"""The classes the key-replicated spec's traces write as variants (its design's)."""

OPTIONAL_FIELDS: dict[str, object] = {"duplicates": False}
"""Configuration fields a trace may leave out, with the value a trace without one has (the
spec's default): written only where they differ from it, so that a trace of a configuration
that does not use them reads as it did before they existed."""

OPTIONAL_KNOBS: dict[str, object] = {"references_after_own_payload": True}
"""Variant knobs a trace may leave out, likewise (`OPTIONAL_FIELDS`)."""


def config_to_json(config: Config) -> dict[str, Any]:
    """Every field of `config` (an optional one only where it differs from its default:
    `OPTIONAL_FIELDS`, `OPTIONAL_KNOBS`), the variant by its knobs (enums by value), the
    environment by its sources' ids: what `config_from_json` reads back."""
    knobs = {f.name: _value(getattr(config.variant, f.name))
             for f in dataclasses.fields(config.variant)}
    optional = {name: getattr(config, name) for name, default in OPTIONAL_FIELDS.items()
                if getattr(config, name) != default}
    return {
        "identities": list(config.identities),
        "budget": config.budget,
        "sizes": [
            [s.content.identity, s.content.version, s.shadow_bytes, s.receiver_bytes]
            for s in config.sizes
        ],
        "versions": config.versions,
        "variant": {name: value for name, value in knobs.items()
                    if name not in OPTIONAL_KNOBS or OPTIONAL_KNOBS[name] != value},
        "environment": list(Environment.of(config.environment).sources),
        "max_retries": config.max_retries,
        "max_in_flight": config.max_in_flight,
        "max_requests": config.max_requests,
        "max_items": config.max_items,
        "front_ends": config.front_ends,
        "engines": config.engines,
        **optional,
    }


def _value(knob: object) -> object:
    return knob.value if isinstance(knob, enum.Enum) else knob


def config_from_json(data: Mapping[str, Any]) -> Config:
    """The configuration `config_to_json` wrote (a knob it lacks holds its default)."""
    v = dict(data["variant"])
    variant = Variant(
        **{
            **v,
            "miss_handling": MissHandling(v["miss_handling"]),
            "shadow_lru": LruFlaw(v["shadow_lru"]),
            "receiver_lru": LruFlaw(v["receiver_lru"]),
        }
    )
    sizes = tuple(ItemSize(Content(i, ver), s, r) for i, ver, s, r in data["sizes"])
    return Config(
        identities=tuple(data["identities"]),
        budget=data["budget"],
        sizes=sizes,
        versions=data["versions"],
        variant=variant,
        environment=environment(*data["environment"]),
        max_retries=data["max_retries"],
        max_in_flight=data["max_in_flight"],
        max_requests=data["max_requests"],
        max_items=data["max_items"],
        front_ends=data["front_ends"],
        engines=data.get("engines", 1),
        duplicates=data.get("duplicates", False),
    )


def _actions(steps: Iterable[tuple[str, Any]]) -> list[Action]:
    """The actions of each step's label and plain arguments, by the design's codec
    (`itf.design_actions`); `BadTraceFile` for a label it has not."""
    try:
        return itf.design_actions(LRU, steps)
    except InvalidAction as error:
        raise BadTraceFile(str(error)) from None


def trace_to_json(
    trace: Trace,
    *,
    property_id: str,
    step: int,
    reason: str,
    fair_from: int | None = None,
    checker: str = HYPOTHESIS.record,
) -> dict[str, Any]:
    """The ITF document of `trace` (`model_checks.kernel.itf.document`) with the project's metadata:
    the full configuration, the checker, the property, the step it broke at and why, and
    where the fair scheduler took over (`fair_from`). A writer adds its own fields to
    `itf.project(...)` (the rung, conformance's) and a lasso's `loop`."""
    config = config_to_json(trace.config)
    meta: dict[str, Any] = {
        "checker": checker, "variant": trace.config.variant.name,
        "environment": config["environment"], "property": property_id, "step": step,
        "reason": reason, "config": config,
    }
    if fair_from is not None:
        meta["fair_from"] = fair_from
    steps = itf.design_steps(LRU, [s.action for s in trace.steps])
    return itf.document(list(trace.states()), steps, meta, tagged=TAGGED)


def write_trace(path: Path, data: Mapping[str, Any]) -> None:
    """Write a trace document (`itf.write_trace`, the one writer)."""
    itf.write_trace(path, data)


# -- replay ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Replayed:
    trace: Trace
    property_id: str
    step: int | None  # where the property broke on replay (None: it did not)
    reason: str
    recorded_step: int
    fair_from: int | None


def replay_file(path: Path) -> Replayed:
    """Re-run a trace file on the spec. Raises BadTraceFile with a one-line reason."""
    data = itf.load(path)
    try:
        return replay_data(data)
    except BadTraceFile as error:
        raise BadTraceFile(f"{path}: {error}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        why = f"{type(error).__name__}: {error}"
        raise BadTraceFile(f"{path} is not a replayable {itf.FORMAT} trace: {why}") from None


def replay_data(data: Mapping[str, Any]) -> Replayed:
    """Re-run a trace document on the spec: its actions from the configuration it states,
    every state compared with the recorded one, the property re-checked."""
    if legacy_trace.is_old_trace(data):
        return _replay_old(legacy_trace.old_trace(data))
    if not itf.is_trace(data):
        raise BadTraceFile(f"not an {itf.FORMAT} trace with #meta[{itf.PROJECT!r}]")
    meta = itf.project(data)
    if "design" in meta:
        raise BadTraceFile(f"a witness of design {meta['design']!r}: replay it with "
                           f"`conform --design {meta['design']} --replay FILE`")
    trace = run(config_of(data), actions_of(data))
    differs = itf.differing_state(data, list(trace.states()), TAGGED)
    if differs is not None:
        raise BadTraceFile(f"step {differs}: the recorded state differs from the one the "
                           "spec computes")
    return rechecked(trace, meta["property"], meta["step"], meta.get("fair_from"))


def config_of(data: Mapping[str, Any]) -> Config:
    """The configuration a trace document states."""
    return config_from_json(itf.project(data)["config"])


def actions_of(data: Mapping[str, Any]) -> list[Action]:
    """The actions of a trace document, the initial state's none first."""
    return _actions(itf.actions(data))


def _replay_old(old: legacy_trace.OldTrace) -> Replayed:
    """An old-format trace re-run, its states compared as the old format wrote them."""
    trace = run(config_from_json(old.config), _actions(old.steps))
    for number, (recorded, computed) in enumerate(zip(old.states, trace.states(), strict=True)):
        if recorded != legacy_trace.to_json(computed, TAGGED):
            raise BadTraceFile(
                f"step {number}: the recorded state differs from the one the spec computes")
    return rechecked(trace, old.meta["property"], old.meta["step"], old.fair_from)


def upgraded(data: Mapping[str, Any]) -> dict[str, Any]:
    """The ITF document of a trace document: itself, or an old-format trace's replay with
    every field of its `#meta` (the configuration written in full, `cycle_from` as ITF's
    `loop`)."""
    if not legacy_trace.is_old_trace(data):
        return dict(data)
    old = legacy_trace.old_trace(data)
    replayed = _replay_old(old)
    new = trace_to_json(replayed.trace, property_id=replayed.property_id,
                        step=replayed.recorded_step, reason=old.meta["reason"],
                        fair_from=replayed.fair_from, checker=old.meta["checker"])
    itf.project(new).update({k: old.meta[k] for k in ("rung", "conformance") if k in old.meta})
    if "cycle_from" in old.meta:
        new["loop"] = old.meta["cycle_from"]
    return new


def rechecked(trace: Trace, property_id: str, recorded_step: int, fair_from: int | None
              ) -> Replayed:
    """`trace` with its property checked again (a conformance disagreement or deadlock has no
    registry property to check)."""
    step, reason = None, ""
    if property_id not in ("deadlock", "disagreement"):
        violation = by_id(property_id).check_trace(trace)
        if violation is not None:
            step, reason = violation.step, violation.reason
    return Replayed(trace, property_id, step, reason, recorded_step, fair_from)


# -- the step table -------------------------------------------------------------------------


def table(
    trace: Trace,
    property_id: str,
    step: int | None,
    reason: str,
    fair_from: int | None = None,
) -> str:
    """The step table in the one trace notation (`model_checks.kernel.lru_notation`, legend in
    docs/notation.md), then where the property broke."""
    where = f"at step {step}" if step is not None else "NOT reproduced"
    fault = list(trace.states())[step].fault if step is not None else None
    kind = f" ({fault.kind.value})" if fault is not None else ""
    return (lru_notation.step_text(trace, fair_from)
            + f"\n{property_id}{kind} broken {where}: {reason}\n"
            f"notation: {located('docs/notation.md')}")
