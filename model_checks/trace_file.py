"""The trace file every checker writes and reads: an ITF-like JSON file, its replay on the spec,
and a labelled step table.

The JSON file (format `paired-caches-trace/1`, modelled on the ITF traces of Apalache and
Quint) holds `#meta` (format, checker, variant, environment, property, the step it broke at
and why), `config` (every field of the configuration, the variant by its knobs), and `states`:
one object per step, the initial state first, each with `#meta.index`, the `action` label,
its `args` and the `state` after it. Steps the fair scheduler took at teardown are marked
`"fair": true`. `replay` rebuilds the configuration and actions from the file, re-runs them
on the spec, checks that every recorded state is the one the spec computes, and re-checks the
property; `table` prints the same table for a found and a replayed trace.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from model_checks import render
from model_checks.verdict_records import HYPOTHESIS
from spec import Config, Content, ItemSize, LruFlaw, MissHandling, Trace, Variant, by_id, run
from spec.drift import describe_environment, environment
from spec.lru import Entry, Ghost
from spec.state import ClientItem
from spec.transitions import ACTION_TYPES, Action

FORMAT = "paired-caches-trace/1"


class BadTraceFile(ValueError):
    """A trace file that cannot be replayed; the message is one line saying why."""


# -- JSON encoding --------------------------------------------------------------------------


_OMITTED_AT_DEFAULT = frozenset({"other_receivers", "engine"})
"""Fields of D5's router configuration (engine 1's receiver; a message's, a sending step's and
an engine step's engine), left out where they hold their default: a single-engine trace is
written exactly as before they existed, so committed traces keep replaying."""


def _written(value: object, field: dataclasses.Field[Any]) -> bool:
    if field.name not in _OMITTED_AT_DEFAULT:
        return True
    return bool(getattr(value, field.name) != field.default)


def to_json(value: object) -> Any:
    """Dataclasses as objects (fields in order; the router's fields only where they differ
    from their default), enums by value, tuples and sets as lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)
                if _written(value, f)}
        if isinstance(value, Entry | Ghost):
            data["#type"] = type(value).__name__
        return data
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted(to_json(v) for v in value)
    return value


def config_to_json(config: Config) -> dict[str, Any]:
    return {
        "identities": list(config.identities),
        "budget": config.budget,
        "sizes": [
            [s.content.identity, s.content.version, s.shadow_bytes, s.receiver_bytes]
            for s in config.sizes
        ],
        "versions": config.versions,
        "variant": to_json(config.variant),
        "environment": describe_environment(config.environment).split("+")
        if config.environment
        else [],
        "max_retries": config.max_retries,
        "max_in_flight": config.max_in_flight,
        "max_requests": config.max_requests,
        "max_items": config.max_items,
        "front_ends": config.front_ends,
        **({"engines": config.engines} if config.engines != 1 else {}),
    }


def config_from_json(data: Mapping[str, Any]) -> Config:
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
    )


_ACTIONS: dict[str, type[Action]] = {t.label: t for t in ACTION_TYPES}


def action_from_json(label: str, args: Mapping[str, Any]) -> Action:
    action_type = _ACTIONS.get(label)
    if action_type is None:
        raise BadTraceFile(f"unknown action {label!r}, expected one of {', '.join(_ACTIONS)}")
    fields = dict(args)
    if "items" in fields:
        fields["items"] = tuple(ClientItem(**item) for item in fields["items"])
    return action_type(**fields)


def _arguments(action: Action) -> dict[str, object]:
    return {f.name: getattr(action, f.name) for f in dataclasses.fields(action)
            if _written(action, f)}


def trace_to_json(
    trace: Trace,
    *,
    property_id: str,
    step: int,
    reason: str,
    fair_from: int | None = None,
    checker: str = HYPOTHESIS.record,
) -> dict[str, Any]:
    states: list[dict[str, Any]] = [
        {"#meta": {"index": 0}, "action": "init", "args": {}, "state": to_json(trace.initial)}
    ]
    for number, s in enumerate(trace.steps, start=1):
        entry: dict[str, Any] = {
            "#meta": {"index": number},
            "action": s.action.label,
            "args": to_json(_arguments(s.action)),
            "state": to_json(s.state),
        }
        if fair_from is not None and number > fair_from:
            entry["fair"] = True
        states.append(entry)
    return {
        "#meta": {
            "format": FORMAT,
            "checker": checker,
            "variant": trace.config.variant.name,
            "environment": config_to_json(trace.config)["environment"],
            "property": property_id,
            "step": step,
            "reason": reason,
        },
        "config": config_to_json(trace.config),
        "states": states,
    }


def write_trace(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")


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
    try:
        data = json.loads(path.read_text())
    except OSError as error:
        raise BadTraceFile(f"cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        why = error.msg.removesuffix(" starting at")  # json says "... starting at" + a position
        raise BadTraceFile(f"{path} is not JSON: {why} (line {error.lineno}, column "
                           f"{error.colno})") from None
    try:
        return replay_data(data)
    except BadTraceFile:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        why = f"{type(error).__name__}: {error}"
        raise BadTraceFile(f"{path} is not a {FORMAT} trace: {why}") from None


def replay_data(data: Mapping[str, Any]) -> Replayed:
    meta = data["#meta"]
    if meta.get("format") != FORMAT:
        raise BadTraceFile(f"format is {meta.get('format')!r}, expected {FORMAT!r}")
    config = config_from_json(data["config"])
    states = data["states"]
    actions = [action_from_json(s["action"], s["args"]) for s in states[1:]]
    trace = run(config, actions)
    for number, (recorded, computed) in enumerate(
        zip(states, trace.states(), strict=True)
    ):
        if recorded["state"] != to_json(computed):
            raise BadTraceFile(
                f"step {number}: the recorded state differs from the one the spec computes"
            )
    fair = [s["#meta"]["index"] for s in states if s.get("fair")]
    fair_from = min(fair) - 1 if fair else None
    property_id = meta["property"]
    step, reason = None, ""
    if property_id not in ("deadlock", "disagreement"):  # no registry property to re-check
        violation = by_id(property_id).check_trace(trace)
        if violation is not None:
            step, reason = violation.step, violation.reason
    return Replayed(trace, property_id, step, reason, meta["step"], fair_from)


# -- the step table -------------------------------------------------------------------------


def table(
    trace: Trace,
    property_id: str,
    step: int | None,
    reason: str,
    fair_from: int | None = None,
) -> str:
    """The step table in the one trace notation (`model_checks.render`, legend in
    docs/notation.md), then where the property broke."""
    where = f"at step {step}" if step is not None else "NOT reproduced"
    fault = list(trace.states())[step].fault if step is not None else None
    kind = f" ({fault.kind.value})" if fault is not None else ""
    return (render.step_text(trace, fair_from)
            + f"\n{property_id}{kind} broken {where}: {reason}\nnotation: docs/notation.md")
