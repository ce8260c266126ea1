"""All-depth results for holding cells by k-induction, optionally strengthened by lemmas.

`k_induction` asks the inductive step for a property P: k+1 states linked by k
transitions, the lemmas L in every state, P in the first k, not P in the last. Unsatisfiable
means P holds in every state reached after k steps from a state where P held for k steps;
with BMC's proof that P holds within the first k steps from the initial state (the base case,
which the caller passes as `base`), P holds for all depths. Every query is bounded by an
rlimit.
"""

from __future__ import annotations

import time

import z3

from model_checks.smt.budget import CERTIFICATE_RLIMIT, Bounded
from model_checks.smt.encode.actions import args_at, transition
from model_checks.smt.encode.properties import BAD
from model_checks.smt.encode.symbols import Encoding, params, params_constraint, state_at
from model_checks.smt.prove.invariant import Invariant, conjunction
from model_checks.smt.results import ProvedAllDepths


def k_induction(
    enc: Encoding, prop: str, k: int, lemmas: tuple[Invariant, ...], base: int,
    rlimit: int = CERTIFICATE_RLIMIT,
) -> ProvedAllDepths | None:
    """P for all depths if the inductive step of length k is unsatisfiable and BMC proved P
    to depth `base` >= k - 1 (the base case); else None."""
    if k < 1 or base < k - 1:
        raise ValueError(f"got k={k} and base case depth {base}, expected 1 <= k <= base + 1")
    start = time.perf_counter()
    p = params(enc)
    states = [state_at(enc, t) for t in range(k + 1)]
    facts = [params_constraint(enc, p)]
    for t in range(k):
        facts.append(transition(enc, p, states[t], states[t + 1], args_at(t)))
        facts.append(z3.Not(BAD[prop](enc, p, states[t])))
    facts += [conjunction(enc, p, state, lemmas) for state in states]
    facts.append(BAD[prop](enc, p, states[k]))
    solver = Bounded.alone(rlimit, *facts)  # its units do not depend on earlier queries
    if solver.check().result != z3.unsat:
        return None
    return ProvedAllDepths(prop, induction_method(k, lemmas, base),
                           induction_certificate(prop, k, lemmas),
                           time.perf_counter() - start, peak=solver.peak)


def induction_method(k: int, lemmas: tuple[Invariant, ...], base: int) -> str:
    """The method text of a k-induction proof; it says "with lemmas" only when there are."""
    used = f"with lemmas {' & '.join(inv.name for inv in lemmas)}" if lemmas else "without lemmas"
    return f"{k}-induction {used} (BMC base case to depth {base})"


def induction_certificate(prop: str, k: int, lemmas: tuple[Invariant, ...]) -> str:
    """What the inductive step was checked with: the lemmas, or the property alone."""
    if lemmas:
        return f"{prop} with the lemmas {' & '.join(inv.name for inv in lemmas)}"
    return f"no lemma: {prop} alone is {k}-inductive"
