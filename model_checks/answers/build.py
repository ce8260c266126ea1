"""Build the answer store from every source of evidence the project keeps.

- The drift lattice's entries (the ci run and each long run): their witnesses (replayed
  traces, the minimal breaking sets among them, the other checkers' breaks merged in), their
  all-instance proofs (holding downward: `explore.every_instance`), a variant's vacuous
  reason (it cannot break the property at all), and, for a property that compares contents
  (`Property.compares_contents`), that it holds in every instance without identity reuse.
- The lattice's kept outcomes: each explored environment that held a property to a rung of
  the run's ladder (every reachable state of the rung's instance judged: all depths of that
  instance). The lattice's instance family grows with its environment (each drift source
  adds only what exists with it), so a hold at a rung covers every environment inside the
  explored one at that rung.
- The verdict records of the results snapshot (Hypothesis, Z3, the per-cell explorer, the
  scenarios): breaks with their traces, and holds for their own cell only (their instance is
  the cell's, which is not monotone in the environment).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from model_checks.answers.model import Hold, Reach, Witness
from model_checks.answers.store import AnswerStore, Facts, ordered
from model_checks.kernel.verdict_records import (
    CHECKERS,
    EXPLORE,
    HYPOTHESIS,
    SCENARIOS,
    Z3_BMC,
    Z3_INDUCTION,
    Verdict,
    VerdictRecord,
)
from spec import Drift, by_id

LATTICE_FAMILY = "the lattice's family at "
"""How a rung's instance is named: the lattice's family (its page states it) at a rung."""

Key = tuple[str, str]
ONE_CONTENT = "one content per identity"
"""The argument for a property that compares contents of one identity (S1, S4): without
identity reuse (D7) every processing of an identity describes the same content, so a tensor
and placeholders of one identity always agree, in every instance."""
SPEC_CHECKERS = frozenset(c.record for c in CHECKERS if c.judges_cells)
"""The checkers whose records are evidence about a variant's spec in a cell."""
_REQUESTS = re.compile(r"(\d+) requests")


@dataclass(frozen=True)
class LatticeRun:
    """One committed lattice run: its entries (`explore --lattice --json`) and its kept
    outcomes (the `--resume` file's `outcomes`), `name` the file it was read from."""

    name: str
    entries: Sequence[Mapping[str, Any]]
    outcomes: Sequence[Mapping[str, Any]]


def lattice_facts(run: LatticeRun) -> dict[Key, Facts]:
    """Witnesses, all-instance proofs and vacuous reasons of every entry, and the rung
    holds of every kept outcome."""
    found: dict[Key, Facts] = {}
    ladder: list[str] = []
    for entry in run.entries:
        key = (str(entry["variant"]), str(entry["property"]))
        ladder = [str(r) for r in entry.get("ladder") or ()]
        found[key] = Facts(tuple(_witness(t) for t in entry.get("traces") or ()
                                 if t.get("trace")),
                           _proofs(entry), str(entry.get("vacuous") or ""))
    for key, holds in _rung_holds(run.outcomes, ladder).items():
        found[key] = found.get(key, Facts()).merged(Facts(holds=tuple(holds)))
    return found


def _witness(trace: Mapping[str, Any]) -> Witness:
    return Witness(int(trace["steps"]), ordered(trace.get("drift") or ()),
                   str(trace.get("checker", "")), str(trace.get("instance") or ""),
                   str(trace["trace"]))


def _proofs(entry: Mapping[str, Any]) -> tuple[Hold, ...]:
    """The entry's all-instance proofs, and for a property that compares contents of one
    identity, the argument that it holds without identity reuse."""
    every = entry.get("every_instance") or {}
    proofs = [Hold(ordered(p["environment"]), Reach.EVERY_INSTANCE, str(p["checker"]), "",
                   True) for p in every.get("proofs") or ()]
    if by_id(str(entry["property"])).compares_contents:
        without_reuse = ordered(d for d in entry.get("sources") or () if d != Drift.D7.value)
        proofs.append(Hold(without_reuse, Reach.EVERY_INSTANCE, ONE_CONTENT, "", True))
    return tuple(proofs)


def _rung_holds(outcomes: Iterable[Mapping[str, Any]], ladder: Sequence[str]
                ) -> dict[Key, list[Hold]]:
    found: dict[Key, list[Hold]] = defaultdict(list)
    for outcome in outcomes:
        env = ordered(outcome.get("environment") or ())
        for prop, verdict in (outcome.get("verdicts") or {}).items():
            if verdict not in ("holds", "vacuous"):
                continue
            rung = int((outcome.get("rung") or {}).get(prop, 0))
            words = ladder[rung] if rung < len(ladder) else f"rung {rung}"
            found[(str(outcome["variant"]), str(prop))].append(
                Hold(env, Reach.INSTANCE, "explore-lattice", LATTICE_FAMILY + words, True,
                     requests_of(words)))
    return found


def requests_of(instance: str) -> int:
    """An instance's request count ("3 requests (2 unfinished), ..." -> 3; 0 if it names
    none): the extent of a hold over it, so that a deeper instance is the one shown."""
    found = _REQUESTS.search(instance)
    return int(found.group(1)) if found else 0


def record_facts(records: Iterable[VerdictRecord], traces: Mapping[tuple[str, tuple[str, ...],
                 str], str]) -> dict[Key, Facts]:
    """Breaks and cell-only holds of the verdict records; `traces[cell]` the snapshot's
    trace file of a cell with a counterexample."""
    witnesses: dict[Key, list[Witness]] = defaultdict(list)
    holds: dict[Key, list[Hold]] = defaultdict(list)
    for r in records:
        if r.checker not in SPEC_CHECKERS:
            continue  # conformance judges an implementation, not the variant's spec
        key, env = (r.variant, r.property), ordered(r.environment)
        if r.verdict is Verdict.COUNTEREXAMPLE and r.counterexample_length is not None:
            trace = traces.get((r.variant, tuple(r.environment), r.property), "")
            witnesses[key].append(Witness(r.counterexample_length, env, r.checker,
                                          _instance(r), trace))
        else:
            hold = _record_hold(r, env)
            if hold is not None:
                holds[key].append(hold)
    return {key: Facts(tuple(witnesses.get(key, ())), tuple(holds.get(key, ()))).merged(Facts())
            for key in {*witnesses, *holds}}


def _record_hold(r: VerdictRecord, env: tuple[str, ...]) -> Hold | None:
    """A record that found no violation, as a hold of its own cell (None: it says nothing,
    as an undecided record or a scenario's pass, which is one hand-written trace)."""
    if r.checker == SCENARIOS.record or r.verdict is Verdict.UNKNOWN:
        return None
    every = r.instance == "any" and r.verdict is Verdict.PROVED and r.bound is None
    if every:
        return Hold(env, Reach.EVERY_INSTANCE, r.checker, "", True)
    if r.verdict in (Verdict.PROVED, Verdict.VACUOUS) and r.bound is None:
        return Hold(env, Reach.INSTANCE, r.checker, _instance(r), False,
                    requests_of(_instance(r)))
    if r.verdict is Verdict.PROVED:
        return Hold(env, Reach.BOUNDED, r.checker, f"depth {r.bound}, {_instance(r)}", False,
                    r.bound or 0)
    if r.verdict is Verdict.HOLDS and r.checker == HYPOTHESIS.record:
        return Hold(env, Reach.SAMPLED, r.checker, r.detail or f"{r.bound} {r.bound_unit}",
                    False, r.bound or 0)
    return None


def _instance(r: VerdictRecord) -> str:
    """The instance a record is about: its own field, or the explorer's detail's."""
    if r.checker == EXPLORE.record:
        _, _, scope = r.detail.partition("; instance: ")
        return scope or r.instance
    if r.checker in (Z3_BMC.record, Z3_INDUCTION.record):
        return r.instance or "Z3's instance"
    return r.instance or r.detail


def build(runs: Sequence[LatticeRun], records: Iterable[VerdictRecord],
          traces: Mapping[tuple[str, tuple[str, ...], str], str],
          sources: Sequence[str] = ()) -> AnswerStore:
    """The store of every lattice run and every record; `AnswerStoreError`-free by
    construction, but a contradiction (an all-instance hold over a witness) is raised as
    `ValueError` naming it: it is a defect, never an answer."""
    facts: dict[Key, Facts] = {}
    for part in [*(lattice_facts(run) for run in runs), record_facts(records, traces)]:
        for key, more in part.items():
            facts[key] = facts[key].merged(more) if key in facts else more.merged(Facts())
    store = AnswerStore(facts, tuple(sources))
    wrong = store.contradictions()
    if wrong:
        raise ValueError("the evidence contradicts itself: " + "; ".join(wrong[:3]))
    return store
