"""Bounded model checking with iterative deepening on one incremental solver.

`bmc` unrolls the transition relation from the initial state, one transition per depth, and
asks, under one assumption literal per depth, whether the property is broken in the state
reached after exactly that many steps. Depths are tried in increasing order, so the first
counterexample is a shortest one, and a bad state with no successor (a fault is absorbing) is
still found at its own depth. Every counterexample is decoded into spec actions, replayed on
the spec, and compared state by state with the SMT relation before it is reported.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import z3

from model_checks.smt.budget import BMC_RLIMIT, Bounded
from model_checks.smt.decode.crosscheck import first_disagreement
from model_checks.smt.decode.trace import decode_trace
from model_checks.smt.encode.actions import args_at, initial, transition
from model_checks.smt.encode.properties import BAD
from model_checks.smt.encode.symbols import (
    Encoding,
    Params,
    SymState,
    at,
    params,
    params_constraint,
    state_at,
)
from model_checks.smt.prove.invariant import Invariant, conjunction
from model_checks.smt.results import ProvedToBound, Result, Unknown, Violated
from spec import by_id

Progress = Callable[[str], None]


class ReplayMismatch(AssertionError):
    """A Z3 counterexample that the spec does not reproduce: the encoding is wrong."""


def bmc(
    enc: Encoding,
    prop: str,
    max_depth: int,
    rlimit: int = BMC_RLIMIT,
    progress: Progress | None = None,
) -> Result:
    """The shortest violation of `prop` within max_depth steps, or the bound reached."""
    return bmc_many(enc, (prop,), max_depth, BmcOptions(rlimit, progress))[prop]


@dataclass
class _Unrolled:
    """The growing unrolling of one `bmc_many` run: its solver (fresh per depth unless
    incremental), the states so far, and every fact asserted (what a fresh solver is given)."""

    enc: Encoding
    p: Params
    rlimit: int
    incremental: bool
    lemmas: tuple[Invariant, ...]
    solver: Bounded
    states: list[SymState]
    facts: list[z3.BoolRef]

    @classmethod
    def start(cls, enc: Encoding, rlimit: int, incremental: bool,
              lemmas: tuple[Invariant, ...]) -> _Unrolled:
        """Depth 0: the parameter ranges, the initial state (and the lemmas there)."""
        p, states = params(enc), [state_at(enc, 0)]
        facts = [params_constraint(enc, p), initial(enc, states[0])]
        if lemmas:
            facts.append(conjunction(enc, p, states[0], lemmas))
        # z3's default solver: faster on these queries than the QF_LIA logic's solver
        # (`benchmarks/bench_smt.py` compares the configurations, `SOLVERS`)
        solver = Bounded(rlimit)
        solver.add(*facts)
        return cls(enc, p, rlimit, incremental, lemmas, solver, states, facts)

    def deepen(self) -> None:
        """One transition more (and the lemmas in the new state)."""
        depth = len(self.states)
        self.states.append(state_at(self.enc, depth))
        new = [transition(self.enc, self.p, self.states[depth - 1], self.states[depth],
                          args_at(depth - 1))]
        if self.lemmas:
            new.append(conjunction(self.enc, self.p, self.states[depth], self.lemmas))
        self.facts += new
        if self.incremental:
            self.solver.add(*new)
        else:
            self.solver = Bounded(self.rlimit)
            self.solver.add(*self.facts)

    def ask(self, props: tuple[str, ...]) -> list[tuple[str, z3.BoolRef]]:
        """Each property's "broken in the last state" under its own assumption literal; on a
        fresh solver the disjunction is asserted too, so z3's preprocessing sees the whole
        query (as an assumption it does not, and deep proofs are 3x slower)."""
        depth, last = len(self.states) - 1, self.states[-1]
        asked = []
        for prop in props:
            literal = z3.Bool(at(f"bad_{prop}", depth))
            self.solver.add(z3.Implies(literal, BAD[prop](self.enc, self.p, last)))
            asked.append((prop, literal))
        if asked and not self.incremental:
            self.solver.add(z3.Or([BAD[prop](self.enc, self.p, last) for prop, _ in asked]))
        return asked


@dataclass(frozen=True)
class BmcOptions:
    """How `bmc_many` searches: `rlimit`, the resource units of each check; `progress`, told
    of each depth; `limits`, a lower bound than the search's for some properties;
    `incremental`: one incremental solver for every depth, or a fresh one per depth;
    `lemmas`: proved invariants asserted in every state of the unrolling (see `bmc_many`)."""

    rlimit: int = BMC_RLIMIT
    progress: Progress | None = None
    limits: Mapping[str, int] | None = None
    incremental: bool = True
    lemmas: tuple[Invariant, ...] = ()


def bmc_many(enc: Encoding, props: tuple[str, ...], max_depth: int,
             options: BmcOptions = BmcOptions()) -> dict[str, Result]:
    """`bmc` for several properties on one shared unrolling: at each depth, each property not
    yet decided is asked under its own assumption literal. `limits` lowers the bound of some
    properties (a property expected to hold is proved to a cheaper bound than the depth to
    which a counterexample is searched). Every check is bounded by `rlimit` resource units; a
    property whose check runs out is Unknown at the depth before, with the units spent.

    One incremental solver serves every depth unless `incremental` is False, which gives each
    depth a fresh solver over the whole unrolling with "some property breaks here" asserted.
    The matrix run is faster incremental (286 s against 330 s: its counterexamples are shallow,
    its proofs stop at depth 6); proofs past depth 10 are about 3x faster fresh
    (`benchmarks/bench_smt.py --incremental` measures both in one run).

    `lemmas` are asserted in every state of the unrolling. Each must be a proved invariant of
    this encoding (a re-checked certificate: it holds in every reachable state), so it removes
    only unreachable states: every query keeps its answer, and counterexamples stay
    shortest."""
    rlimit, progress, limits = options.rlimit, options.progress, options.limits
    incremental, lemmas = options.incremental, options.lemmas
    bound = {prop: min(max_depth, (limits or {}).get(prop, max_depth)) for prop in props}
    unrolled = _Unrolled.start(enc, rlimit, incremental, lemmas)
    start = time.perf_counter()
    results: dict[str, Result] = {}
    peak = 0  # the most units one check has spent so far: how close the limit came
    for depth in range(max_depth + 1):
        if depth:
            unrolled.deepen()
        open_props = tuple(prop for prop in props if prop not in results)
        for prop in open_props:
            if depth > bound[prop]:
                results[prop] = _bound_reached(enc, prop, bound[prop],
                                               time.perf_counter() - start, peak)
        asked = unrolled.ask(tuple(prop for prop in open_props if prop not in results))
        decided = _check_depth(enc, unrolled.solver, unrolled.p, tuple(unrolled.states),
                               asked, start)
        peak = max(peak, unrolled.solver.peak)
        results.update({prop: replace(found, peak=peak) for prop, found in decided.items()})
        _report(progress, enc, depth, props, results, start)
        if len(results) == len(props):
            return results
    elapsed = time.perf_counter() - start
    for prop in props:
        if prop not in results:
            results[prop] = _bound_reached(enc, prop, bound[prop], elapsed, peak)
    return results


def _report(progress: Progress | None, enc: Encoding, depth: int, props: tuple[str, ...],
            results: dict[str, Result], start: float) -> None:
    if progress is not None:
        open_props = " ".join(q for q in props if q not in results) or "-"
        elapsed = time.perf_counter() - start
        progress(f"  {enc.describe()} depth {depth}: open {open_props} ({elapsed:.1f} s)")


def _check_depth(
    enc: Encoding, solver: Bounded, p: Params, states: tuple[SymState, ...],
    asked: list[tuple[str, z3.BoolRef]], start: float,
) -> dict[str, Result]:
    """Decide the properties asked at this depth. One query for all of them first: when none
    can break here (the common case), that is one solver call instead of one per property;
    otherwise each is asked alone under its own literal."""
    if len(asked) > 1:
        either = z3.Bool(at("bad_any_" + "_".join(prop for prop, _ in asked), len(states) - 1))
        solver.add(z3.Implies(either, z3.Or([literal for _, literal in asked])))
        if solver.check(either).result == z3.unsat:
            return {}
    found: dict[str, Result] = {}
    for prop, literal in asked:
        answer = solver.check(literal)
        elapsed = time.perf_counter() - start
        if answer.result == z3.sat:
            found[prop] = _violation(enc, prop, solver.model(), p, states, elapsed)
        elif answer.result == z3.unknown:
            found[prop] = Unknown(prop, len(states) - 2, answer.why_unknown(), elapsed,
                                  answer.used)
    return found


def _bound_reached(enc: Encoding, prop: str, depth: int, elapsed: float, peak: int) -> Result:
    if enc.left_out:
        reason = "no violation within the bound in the encoded part of the environment"
        return Unknown(prop, depth, reason, elapsed, peak=peak)
    return ProvedToBound(prop, depth, elapsed, peak)


def _violation(
    enc: Encoding, prop: str, model: z3.ModelRef, p: Params, states: tuple[SymState, ...],
    elapsed: float,
) -> Violated:
    depth = len(states) - 1
    config, trace = decode_trace(enc, model, p, states)
    found = by_id(prop).check_trace(trace)
    if found is None or found.step != depth:
        where = "no violation" if found is None else f"a violation at step {found.step}"
        raise ReplayMismatch(
            f"{enc.describe()}: Z3 breaks {prop} after {depth} steps, the spec replay finds "
            f"{where}; actions: {[s.action for s in trace.steps]}"
        )
    disagreement = first_disagreement(enc, trace)
    if disagreement is not None:
        raise ReplayMismatch(f"{enc.describe()}: decoded counterexample: {disagreement}")
    return Violated(prop, depth, config, trace, elapsed)
