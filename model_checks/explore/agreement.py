"""Three checkers, one verdict: where the explorer, Z3 and Hypothesis disagree on a cell.

Two verdicts contradict only within one instance. So a disagreement is a concrete trace:
- the explorer proved a property (or found it vacuous) for its instance, and a Hypothesis or
  Z3 counterexample of the same cell is, action by action, a trace of that instance that
  breaks the property (replayed on the spec with the explorer's configuration);
- Z3 proved a property for all depths, or to a depth at least the trace's length, and an
  explorer counterexample of the same cell, replayed with the matrix's configuration (the
  explorer's instance is a restriction of it), breaks the property.
A counterexample that is not a trace of the other instance contradicts nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from model_checks.matrix import config_for
from model_checks.records import Verdict, VerdictRecord
from model_checks.simulate.counterexample import action_from_json, config_from_json
from spec import Action, Config, TraceError, by_id, run, variant_named

Cell = tuple[str, tuple[str, ...]]


def _actions(path: str) -> list[Action] | None:
    try:
        data = json.loads(Path(path).read_text())
        return [action_from_json(s["action"], s["args"]) for s in data["states"][1:]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _breaks(config: Config, actions: list[Action], prop_id: str) -> bool:
    try:
        trace = run(config, actions)
    except TraceError:
        return False  # not a trace of this instance
    return by_id(prop_id).check_trace(trace) is not None


def disagreements(
    explored: Iterable[VerdictRecord],
    instances: Mapping[tuple[Any, ...], dict[str, Any]],
    others: Iterable[VerdictRecord],
) -> list[str]:
    """One line per contradiction between the explorer's records (with the configuration of
    the instance each record holds for: keyed by (variant, environment, property), or by
    (variant, environment) for the whole cell) and the other checkers' records."""
    by_key: dict[tuple[str, tuple[str, ...], str], list[VerdictRecord]] = {}
    for record in others:
        if record.checker in ("hypothesis", "z3-bmc", "z3-induction"):
            key = (record.variant, tuple(record.environment), record.property)
            by_key.setdefault(key, []).append(record)
    found: list[str] = []
    for mine in explored:
        cell = (mine.variant, tuple(mine.environment))
        for other in by_key.get((*cell, mine.property), []):
            instance = instances.get((*cell, mine.property), instances.get(cell))
            line = _contradiction(mine, other, instance)
            if line:
                found.append(f"{mine.variant} {'+'.join(cell[1]) or 'none'} {mine.property}: "
                             + line)
    return found


def _contradiction(
    mine: VerdictRecord, other: VerdictRecord, instance: dict[str, Any] | None
) -> str | None:
    if (mine.verdict in (Verdict.PROVED, Verdict.VACUOUS) and instance is not None
            and other.verdict is Verdict.COUNTEREXAMPLE and other.counterexample_path):
        actions = _actions(other.counterexample_path)
        if actions is not None and _breaks(config_from_json(instance), actions, mine.property):
            return (f"explore says {mine.verdict.value} for its instance, but {other.checker}'s "
                    f"{len(actions)}-step trace ({other.counterexample_path}) is a trace of that "
                    "instance and breaks it")
    z3_proved = other.checker.startswith("z3") and other.verdict is Verdict.PROVED
    if z3_proved and mine.verdict is Verdict.COUNTEREXAMPLE and mine.counterexample_path:
        actions = _actions(mine.counterexample_path)
        if actions is None or (other.bound is not None and other.bound < len(actions)):
            return None
        matrix = config_for(variant_named(mine.variant), tuple(mine.environment))
        if _breaks(matrix, actions, mine.property):
            depth = "all depths" if other.bound is None else f"depth {other.bound}"
            return (f"{other.checker} proved it to {depth}, but explore's {len(actions)}-step "
                    f"trace ({mine.counterexample_path}) breaks it in the matrix's instance")
    return None
