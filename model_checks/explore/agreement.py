"""Three checkers, one verdict: where the explorer, Z3 and Hypothesis disagree, within a
cell and across instances and environments.

Two verdicts contradict only when a concrete trace of one instance breaks what was proved
for it. A break under environment E' is a break under every E containing it (the spec reads
the environment only in guards), so the comparison runs across environments too, and
across instances (the per-cell explorer's rungs, Z3's and Hypothesis's instance): a
disagreement is
- the explorer proved a property (or found it vacuous) for its instance under E, and a
  Hypothesis, Z3 or explorer counterexample under E or any E' inside E (another cell, another
  instance) is, action by action, a trace of the explorer's instance that breaks the
  property (replayed on the spec with the explorer's configuration);
- Z3 proved a property under E for all depths, or to a depth at least the trace's length, and
  an explorer counterexample under E or any E' inside E, replayed with the matrix's
  configuration of E (the explorer's instances are restrictions of the matrix's), breaks the
  property.
Such a pair is exactly what monotonicity rules out (a run of the smaller instance or
environment is a run of the larger). A counterexample that is not a trace of the other
instance contradicts nothing: "holds with 2 requests, breaks with 3" is an answer, not a
disagreement. A trace is read and replayed by its design (`Replay`: the LRU design's is
`explore.instance.LRU_REPLAY`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from model_checks.kernel.verdict_records import MATRIX_INSTANCE, Verdict, VerdictRecord
from spec.drift import Environment


class Replay(Protocol):
    """A design's counterexamples read and replayed: whether a trace file's actions break a
    property on another instance."""

    def actions(self, path: str) -> Sequence[Any] | None:
        """The actions of the trace file at `path` (None: not a trace file of the design)."""
        ...

    def breaks(self, instance: Mapping[str, Any], actions: Sequence[Any], prop: str) -> bool:
        """Whether `actions` are a trace of the instance whose configuration `instance`
        states (an explorer's) and break `prop` there."""
        ...

    def breaks_matrix(self, variant: str, environment: tuple[str, ...],
                      actions: Sequence[Any], prop: str) -> bool:
        """Whether `actions` are a trace of the matrix's instance of `variant` under
        `environment` (Z3's and Hypothesis's) and break `prop` there."""
        ...


def disagreements(
    explored: Iterable[VerdictRecord],
    instances: Mapping[tuple[Any, ...], dict[str, Any]],
    others: Iterable[VerdictRecord],
    replay: Replay,
) -> list[str]:
    """One line per contradiction between the explorer's records (with the configuration of
    the instance each record holds for: keyed by (variant, environment, property), or by
    (variant, environment) for the whole cell) and the other checkers' records, their
    traces replayed by `replay`."""
    mine_all = list(explored)
    by_key: dict[tuple[str, str], list[VerdictRecord]] = {}
    for record in others:
        if record.checker in MATRIX_INSTANCE:
            by_key.setdefault((record.variant, record.property), []).append(record)
    breaks: dict[tuple[str, str], list[VerdictRecord]] = {}
    for record in mine_all:
        if record.verdict is Verdict.COUNTEREXAMPLE:
            breaks.setdefault((record.variant, record.property), []).append(record)
    found: list[str] = []
    for mine in mine_all:
        cell = (mine.variant, tuple(mine.environment))
        env = set(mine.environment)
        instance = instances.get((*cell, mine.property), instances.get(cell))
        for other in by_key.get((mine.variant, mine.property), []):
            other_env = set(other.environment)
            if other_env <= env:  # another checker's break below an explorer proof
                line = _contradiction(mine, other, instance, replay)
            elif env < other_env:  # an explorer break below a Z3 proof
                line = _z3_above(mine, other, replay)
            else:
                continue
            if line:
                found.append(f"{mine.variant} {Environment.of(cell[1]).text} {mine.property}: "
                             + _where(other, cell[1]) + line)
        if mine.verdict not in (Verdict.PROVED, Verdict.VACUOUS) or instance is None:
            continue
        for other in breaks.get((mine.variant, mine.property), []):
            if set(other.environment) < env:  # the explorer's own break in a smaller cell
                line = _contradiction(mine, other, instance, replay)
                if line:
                    found.append(f"{mine.variant} {Environment.of(cell[1]).text} "
                                 f"{mine.property}: " + _where(other, cell[1]) + line)
    return found


def _where(other: VerdictRecord, env: tuple[str, ...]) -> str:
    if tuple(other.environment) == tuple(env):
        return ""
    return f"(across environments: {Environment.of(other.environment).text}) "


def _z3_above(mine: VerdictRecord, other: VerdictRecord, replay: Replay) -> str | None:
    """Z3's proof under a larger environment against the explorer's break under `mine`'s,
    replayed on the matrix's instance of Z3's environment."""
    if not (other.checker.startswith("z3") and other.verdict is Verdict.PROVED):
        return None
    if mine.verdict is not Verdict.COUNTEREXAMPLE or not mine.counterexample_path:
        return None
    actions = replay.actions(mine.counterexample_path)
    if actions is None or (other.bound is not None and other.bound < len(actions)):
        return None
    if not all(d.startswith("D") and d[1:].isdigit() for d in other.environment):
        return None
    if replay.breaks_matrix(mine.variant, tuple(other.environment), actions, mine.property):
        depth = "all depths" if other.bound is None else f"depth {other.bound}"
        return (f"{other.checker} proved it to {depth} under "
                f"{'+'.join(other.environment)}, but explore's {len(actions)}-step trace "
                f"({mine.counterexample_path}) breaks it in that matrix instance")
    return None


def _contradiction(
    mine: VerdictRecord, other: VerdictRecord, instance: dict[str, Any] | None, replay: Replay
) -> str | None:
    if (mine.verdict in (Verdict.PROVED, Verdict.VACUOUS) and instance is not None
            and other.verdict is Verdict.COUNTEREXAMPLE and other.counterexample_path):
        actions = replay.actions(other.counterexample_path)
        if actions is not None and replay.breaks(instance, actions, mine.property):
            return (f"explore says {mine.verdict.value} for its instance, but {other.checker}'s "
                    f"{len(actions)}-step trace ({other.counterexample_path}) is a trace of that "
                    "instance and breaks it")
    z3_proved = other.checker.startswith("z3") and other.verdict is Verdict.PROVED
    same = tuple(other.environment) == tuple(mine.environment)
    if same and z3_proved and mine.verdict is Verdict.COUNTEREXAMPLE and mine.counterexample_path:
        actions = replay.actions(mine.counterexample_path)
        if actions is None or (other.bound is not None and other.bound < len(actions)):
            return None
        if replay.breaks_matrix(mine.variant, tuple(mine.environment), actions,
                                mine.property):
            depth = "all depths" if other.bound is None else f"depth {other.bound}"
            return (f"{other.checker} proved it to {depth}, but explore's {len(actions)}-step "
                    f"trace ({mine.counterexample_path}) breaks it in the matrix's instance")
    return None
