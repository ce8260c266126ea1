"""All-depth proofs by z3's CHC engine (Spacer), each re-checked as a certificate.

The transition system of an encoding becomes three constrained Horn clauses over one
uninterpreted relation `Reach(parameters, state)`, whose arguments are the encoding's
parameters (budget, sizes: constant along a run) and its state variables (those `constants`
does not fix):

    params_constraint(p) and initial(s)                 =>  Reach(p, s)
    Reach(p, s) and transition(p, s, s', args)          =>  Reach(p, s')
    Reach(p, s) and bad(p, s)                           =>  false

The step's arguments (`args`) occur in the body only, so they are existentially quantified,
as in BMC. z3's HORN solver (Spacer) answers sat when the clauses have a model, an
interpretation of `Reach` that is an inductive invariant excluding every bad state: the
property holds at every depth. It answers unsat when a bad state is reachable (a derivation of
false), and unknown when its resource limit (`rlimit`, units per query, never seconds) runs out.

Spacer is not trusted: the invariant read from its model is re-checked by `invariant.prove`,
with fresh plain solvers and nothing of Spacer's state (initiation, non-vacuity, consecution
under every action, and that it excludes the bad states). Only a certificate that passes those
checks becomes a `ProvedAllDepths` ("Spacer CHC, invariant re-checked"); a reachable bad state
is reported as such (`Reachable`), and it is never turned into a proof: the runner then searches
that property by BMC deep enough to return the violation as a decoded, replayed trace
(`proved_first.REACHABLE_DEPTH`); Spacer's derivation itself is not decoded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import z3

from model_checks.smt.budget import Answer, Bounded, own_context
from model_checks.smt.encode.actions import args_at, initial, transition
from model_checks.smt.encode.properties import BAD
from model_checks.smt.encode.symbols import (
    Encoding,
    Params,
    SymState,
    constants,
    params,
    params_constraint,
    state_at,
)
from model_checks.smt.limits import CERTIFICATE_RLIMIT, CHC_RLIMIT
from model_checks.smt.prove.invariant import CertificateRejected, Invariant, prove
from model_checks.smt.results import ProvedAllDepths

METHOD = "Spacer CHC, invariant re-checked (3-step check with fresh solvers)"


@dataclass(frozen=True)
class Reachable:
    """Spacer derived false: a state breaking `property` is reachable (its derivation is not
    decoded; the runner has BMC find and replay the trace)."""

    property: str
    used: int


@dataclass(frozen=True)
class Undecided:
    """Spacer ran out of its rlimit or gave up below it (`used` units), or its invariant
    failed the re-check: `reason` says which."""

    property: str
    used: int
    reason: str


ChcResult = ProvedAllDepths | Reachable | Undecided


def _parameters(p: Params) -> list[z3.ArithRef]:
    return [p.budget, *p.shadow_bytes.values(), *p.receiver_bytes.values()]


def _variables(enc: Encoding) -> tuple[str, ...]:
    """The state variables that are arguments of the relation (the rest are constants)."""
    fixed = constants(enc)
    return tuple(name for name in state_at(enc, 0) if name not in fixed)


@dataclass(frozen=True)
class Clauses:
    """The Horn clauses of one encoding and property, and the relation they constrain."""

    reach: z3.FuncDeclRef
    rules: tuple[z3.BoolRef, ...]
    names: tuple[str, ...]
    state: SymState  # the state at step 0: the invariant read from the model is over it
    parameters: Params

    def apply(self, p: Params, s: SymState) -> z3.BoolRef:
        result = self.reach(*_parameters(p), *[s[name] for name in self.names])
        assert isinstance(result, z3.BoolRef)
        return result


def clauses(enc: Encoding, prop: str) -> Clauses:
    """The three Horn clauses (initiation, step, query) of `prop` for `enc`."""
    p = params(enc)
    s, n, a = state_at(enc, 0), state_at(enc, 1), args_at(0)
    names = _variables(enc)
    sorts = [x.sort() for x in _parameters(p)] + [s[name].sort() for name in names]
    reach = z3.Function(f"reach_{prop}", *sorts, z3.BoolSort())
    shell = Clauses(reach, (), names, s, p)
    bound = [*_parameters(p), *[s[x] for x in names], *[n[x] for x in names], a.act, a.rid,
             a.sfe, a.sn, *a.sid, *a.sver, *a.sdata]
    rules = (
        z3.ForAll(bound, z3.Implies(z3.And(params_constraint(enc, p), initial(enc, s)),
                                    shell.apply(p, s))),
        z3.ForAll(bound, z3.Implies(z3.And(shell.apply(p, s), transition(enc, p, s, n, a)),
                                    shell.apply(p, n))),
        z3.ForAll(bound, z3.Implies(z3.And(shell.apply(p, s), BAD[prop](enc, p, s)),
                                    z3.BoolVal(False))),
    )
    return Clauses(reach, rules, names, s, p)


def spacer_invariant(enc: Encoding, prop: str, rlimit: int = CHC_RLIMIT
                     ) -> tuple[z3.BoolRef | None, Answer]:
    """Spacer's answer for `prop`: (its invariant over the step-0 state, or None; the HORN
    solver's answer: sat = an invariant exists, unsat = a bad state is reachable, unknown =
    the rlimit ran out or Spacer gave up, `Answer.why_unknown` says which, with the units
    spent).

    The query runs in a z3 context of its own (`budget.own_context`): the units Spacer spends,
    and so whether it runs out, depend on the terms its context holds, and the process's
    context holds whatever earlier queries built (the certificates of the other properties of
    the cell group, those a test worker ran before). Its answer is then a function of the
    clauses and `rlimit` only, whichever cells were asked with it; the model is translated
    back to be read."""
    horn = clauses(enc, prop)
    own, rules = own_context(horn.rules)
    solver = Bounded(rlimit, z3.SolverFor("HORN", ctx=own))
    solver.add(*rules)
    answer = solver.check()
    if answer.result != z3.sat:
        return None, answer
    model = solver.model().translate(z3.main_ctx())
    return _interpretation(model, horn), answer


def _interpretation(model: z3.ModelRef, horn: Clauses) -> z3.BoolRef:
    """The model's interpretation of the relation, applied to the step-0 state, read from the
    function interpretation (its `Var(i)` is argument i). Not `model.eval` of the
    application: on the pinned z3 that answers True for these relations (the re-check then
    rejects it, rightly, but it is not Spacer's invariant)."""
    found = model[horn.reach]
    arguments = horn.apply(horn.parameters, horn.state).children()
    if found is None:
        return z3.BoolVal(True)
    result = found.else_value()
    for index in range(found.num_entries() - 1, -1, -1):  # explicit points, if any
        entry = found.entry(index)
        point = z3.And([a == entry.arg_value(i) for i, a in enumerate(arguments)])
        result = z3.If(point, entry.value(), result)
    formula = z3.substitute_vars(result, *arguments) if z3.is_expr(result) else result
    assert isinstance(formula, z3.BoolRef)
    return formula


def as_invariant(enc: Encoding, prop: str, formula: z3.BoolRef) -> Invariant:
    """Spacer's invariant as a named `Invariant` over any state (its step-0 variables
    replaced by that state's)."""
    zero = state_at(enc, 0)
    names = _variables(enc)
    used = sorted({name for name in names if _mentions(formula, zero[name])})
    statement = (f"Spacer's inductive invariant for {prop}: {_clauses(formula)} clause(s) over "
                 f"{', '.join(used) or 'no state variable'}")

    def holds(enc_: Encoding, p: Params, s: SymState) -> z3.BoolRef:
        result = z3.substitute(formula, *[(zero[name], s[name]) for name in names])
        assert isinstance(result, z3.BoolRef)
        return result

    return Invariant(f"spacer-{prop}", statement, holds)


def _clauses(formula: z3.BoolRef) -> int:
    return formula.num_args() if z3.is_and(formula) else 1


def _mentions(formula: z3.ExprRef, var: z3.ExprRef) -> bool:
    seen: set[int] = set()
    todo = [formula]
    while todo:
        term = todo.pop()
        if term.get_id() in seen:
            continue
        seen.add(term.get_id())
        if term.eq(var):
            return True
        todo.extend(term.children())
    return False


def chc_decide(
    enc: Encoding, prop: str, rlimit: int = CHC_RLIMIT,
    certificate_rlimit: int = CERTIFICATE_RLIMIT,
) -> tuple[ChcResult, Invariant | None]:
    """`prop` for all depths by Spacer, its invariant re-checked as a certificate, or why not
    (a verdict is a function of the encoding, the property and the two limits); with the
    re-checked invariant of a proof (None otherwise): it holds in every reachable state, so
    BMC may assert it as a lemma (`proved_first`)."""
    start = time.perf_counter()
    formula, answer = spacer_invariant(enc, prop, rlimit)
    used = answer.used
    if answer.result == z3.unsat:
        return Reachable(prop, used), None
    if formula is None:
        return Undecided(prop, used, f"Spacer: {answer.why_unknown()}"), None
    invariant = as_invariant(enc, prop, formula)
    try:
        (proof,) = prove(enc, (invariant,), (prop,), certificate_rlimit)
    except CertificateRejected as rejected:
        return Undecided(prop, used,
                         f"Spacer's invariant rejected by the re-check: {rejected}"), None
    return ProvedAllDepths(prop, METHOD, invariant.statement, time.perf_counter() - start,
                           peak=max(used, proof.peak)), invariant
