"""Spec <-> SMT: is every step of a spec trace a step of the SMT relation, and the only one; and
at a spec state, does the relation enable exactly the spec's actions?

For each step, the state before is pinned to the spec's state (`matches` plus concrete stamps),
the arguments to the spec action's, and two questions are asked: does the relation allow the
spec's next state (accepted), and does it allow any other (determinism)? Orders (LRU recency,
channel order) are compared as orders, not as stamp values. A faulted next state is compared on
its fault kind only: it is absorbing, and its other fields are the spec's partial work.

The tests check the other direction on sampled reachable states with the same solver
(tests/smt/test_smt_both_directions.py): the relation, from the state pinned, takes no step
whose arguments are not those of an action the spec enables there. Every query is bounded by
`budget.STEP_RLIMIT`.
"""

from __future__ import annotations

import z3

from model_checks.smt.budget import STEP_RLIMIT, Bounded
from model_checks.smt.decode.fields import NotEncodable, pin_arguments
from model_checks.smt.encode.actions import args_at, codes_of, transition
from model_checks.smt.encode.symbols import (
    NONE_PID,
    STAMPS_PER_STEP,
    DeliveryCode,
    Encoding,
    FaultCode,
    OutcomeCode,
    Params,
    StageCode,
    SymState,
    item,
    lru_name,
    msg_name,
    params,
    rep_name,
    req_name,
    state_at,
)
from spec import Action, Config, State, Trace
from spec import lru as spec_lru
from spec.state import Request, Stage, WireItem

_CLOCK = 1000


def _tag(value: int | None) -> int:
    return NONE_PID if value is None else value


def _ordered(stamps: list[z3.ArithRef]) -> list[z3.BoolRef]:
    return [stamps[i] < stamps[j] for i in range(len(stamps)) for j in range(i + 1, len(stamps))]


def _version(state: State, pid: int, identity: str) -> int:
    """The version of processing pid, which must be a processing of `identity`."""
    processing = state.processings[pid]
    if processing.identity != identity:
        raise NotEncodable(f"pid {pid} is a processing of {processing.identity!r}, held for "
                           f"{identity!r}: the encoding assumes a slot's own identity")
    return processing.version


def _side(
    enc: Encoding, s: SymState, side: str, slots: spec_lru.Lru, state: State
) -> list[z3.BoolRef]:
    ids = enc.bounds.identities
    facts: list[z3.BoolRef] = []
    by_id = {slot.identity: slot for slot in slots}
    for k, ident in enumerate(ids):
        slot = by_id.get(ident)
        is_entry = isinstance(slot, spec_lru.Entry)
        facts += [s[lru_name(side, "in", k)] == is_entry,
                  s[lru_name(side, "ghost", k)] == isinstance(slot, spec_lru.Ghost)]
        if isinstance(slot, spec_lru.Entry):
            facts += [s[lru_name(side, "ver", k)] == _version(state, slot.processing, ident),
                      s[lru_name(side, "size", k)] == slot.size,
                      s[lru_name(side, "pid", k)] == slot.processing,
                      s[lru_name(side, "tag", k)] == _tag(slot.tag)]
    facts += _ordered([s[lru_name(side, "ts", ids.index(slot.identity))] for slot in slots])
    return facts


_STAGES = {Stage.SUBMITTED: StageCode.SUBMITTED, Stage.IN_FLIGHT: StageCode.IN_FLIGHT,
           Stage.DONE: StageCode.DONE, Stage.PROCESSED: StageCode.PROCESSED,
           Stage.UPDATING: StageCode.UPDATING}


def _wire(s: SymState, state: State, r: int, j: int, wire: WireItem) -> list[z3.BoolRef]:
    """Message r's item j holds `wire`."""
    if wire.data is not None and wire.data != wire.placeholders:
        raise NotEncodable(f"{wire!r}: a payload whose placeholders are another pid")
    return [s[msg_name(r, item("data", j))] == (NONE_PID if wire.data is None else wire.data),
            s[msg_name(r, item("ph", j))] == wire.placeholders,
            s[msg_name(r, item("ver", j))] == _version(state, wire.placeholders, wire.identity),
            s[msg_name(r, item("tag", j))] == _tag(wire.tag)]


def _work(enc: Encoding, s: SymState, state: State, request: Request) -> list[z3.BoolRef]:
    """D6: an attempt between probe and send, its pids, progress, order and wire items."""
    work = request.work
    if work is None:
        return []
    r = request.rid
    facts = [s[req_name(r, item("proc", j))] == _tag(pid) for j, pid in enumerate(work.processed)]
    if enc.m > 1:
        facts.append(s[req_name(r, "done")] == work.done)
    if work.order and enc.m > 1:
        facts.append(s[req_name(r, "swap")] == (work.order[0] == 1))
    for index, wire in work.wire:
        facts += _wire(s, state, r, index, wire)
    return facts


def _requests(enc: Encoding, s: SymState, state: State) -> list[z3.BoolRef]:
    ids = enc.bounds.identities
    facts: list[z3.BoolRef] = [s["nreq"] == len(state.requests)]
    for request in state.requests:
        if len(request.items) > enc.m or request.front_end >= enc.front_ends:
            raise NotEncodable(f"request {request!r} is outside the encoding")
        outcome = OutcomeCode[request.outcome.name] if request.outcome else OutcomeCode.NONE
        r = request.rid
        facts += [s[req_name(r, "fe")] == request.front_end,
                  s[req_name(r, "n")] == len(request.items),
                  s[req_name(r, "retries")] == request.retries,
                  s[req_name(r, "stage")] == _STAGES[request.stage],
                  s[req_name(r, "outcome")] == outcome]
        for j, client_item in enumerate(request.items):
            facts += [s[req_name(r, item("id", j))] == ids.index(client_item.identity),
                      s[req_name(r, item("ver", j))] == client_item.version,
                      s[req_name(r, item("data", j))] == client_item.has_data,
                      s[req_name(r, item("missed", j))] == (client_item.identity in request.missed)]
        facts += _work(enc, s, state, request)
    return facts


def _channels(enc: Encoding, s: SymState, state: State) -> list[z3.BoolRef]:
    facts: list[z3.BoolRef] = []
    sent = {m.rid: m for m in state.to_engine}
    replied = {r.rid: r for r in state.to_front_end}
    for r in range(enc.r):
        facts.append(s[msg_name(r, "pend")] == (r in sent))
        facts.append(s[rep_name(r, "pend")] == (r in replied))
        if r in sent:
            if sent[r].engine >= enc.engines:
                raise NotEncodable(f"{sent[r]!r} is routed to engine {sent[r].engine}; the "
                                   f"encoding has {enc.engines}")
            facts.append(s[msg_name(r, "eng")] == sent[r].engine)
            for j, wire in enumerate(sent[r].items):
                facts += _wire(s, state, r, j, wire)
        if r in replied:
            identities = [i.identity for i in state.requests[r].items]
            facts += [s[rep_name(r, item("missed", j))] == (identity in replied[r].missed)
                      for j, identity in enumerate(identities)]
    facts += _ordered([s[msg_name(m.rid, "seq")] for m in state.to_engine])
    facts += _ordered([s[rep_name(m.rid, "seq")] for m in state.to_front_end])
    return facts


def _globals(s: SymState, state: State) -> list[z3.BoolRef]:
    facts: list[z3.BoolRef] = [s["nproc"] == len(state.processings),
                               s["reset"] == state.reset_pending]
    fault = FaultCode.NONE if state.fault is None else FaultCode[state.fault.kind.name]
    facts.append(s["fault"] == fault)
    delivery = state.last_delivery
    if delivery is None:
        facts.append(s["ld_kind"] == DeliveryCode.NONE)
    elif delivery.missed:
        facts += [s["ld_kind"] == DeliveryCode.MISSED, s["ld_rid"] == delivery.message.rid]
    else:
        facts += [s["ld_kind"] == DeliveryCode.SERVED, s["ld_rid"] == delivery.message.rid]
        for j, served in enumerate(delivery.served):
            facts += [s[item("ld_tensor", j)] == served.tensor,
                      s[item("ld_ph", j)] == served.placeholders,
                      s[item("ld_tver", j)] == _version(state, served.tensor, served.identity),
                      s[item("ld_pver", j)] == _version(state, served.placeholders,
                                                        served.identity),
                      s[item("ld_sent", j)] == served.sent_version]
    return facts


def matches(enc: Encoding, s: SymState, state: State) -> z3.BoolRef:
    """The symbolic state s represents the spec state (orders compared as orders)."""
    if state.fault is not None:
        return s["fault"] == FaultCode[state.fault.kind.name]
    if len(state.shadows) > enc.front_ends:
        raise NotEncodable(f"{len(state.shadows)} front ends; the encoding has {enc.front_ends}")
    facts: list[z3.BoolRef] = []
    for fe, side in enumerate(enc.shadows):
        shadow = state.shadows[fe] if fe < len(state.shadows) else ()
        facts += _side(enc, s, side, shadow, state)
    if len(state.receivers()) > enc.engines:
        raise NotEncodable(f"{len(state.receivers())} engines; the encoding has {enc.engines}")
    for engine, side in enumerate(enc.receivers):
        receiver = state.receiver_of(engine) if engine < len(state.receivers()) else ()
        facts += _side(enc, s, side, receiver, state)
    facts += _requests(enc, s, state) + _channels(enc, s, state) + _globals(s, state)
    return z3.And(facts)


def _below_clock(enc: Encoding, s: SymState) -> list[z3.BoolRef]:
    recency = [s[lru_name(side, "ts", k)] for side in enc.sides for k in range(enc.k)]
    seqs = [s[name(r, "seq")] for name in (msg_name, rep_name) for r in range(enc.r)]
    return [s["clock"] == _CLOCK, *[z3.And(x > 0, x < _CLOCK) for x in seqs],
            *[z3.And(x > 0, x < _CLOCK * STAMPS_PER_STEP) for x in recency]]


def _params_of(enc: Encoding, p: Params, config: Config) -> list[z3.BoolRef]:
    from spec import Content

    ids = enc.bounds.identities
    facts: list[z3.BoolRef] = [p.budget == config.budget]
    for (k, v), shadow in p.shadow_bytes.items():
        content = Content(ids[k], v)
        facts += [shadow == config.shadow_bytes(content),
                  p.receiver_bytes[(k, v)] == config.receiver_bytes(content)]
    return facts


def arguments(enc: Encoding, before: State, action: Action) -> list[z3.BoolRef]:
    """The facts fixing the step's code and arguments to the spec action's (`fields`)."""
    a = args_at(0)
    pin = pin_arguments(enc, before, action, a)
    codes = codes_of(type(action), pin.front_end, pin.engine)
    code = a.act == codes[0] if len(codes) == 1 else z3.Or([a.act == c for c in codes])
    return [code, *pin.facts]


class StepChecker:
    """One solver holding the transition relation of a configuration; each step is checked in
    its own push/pop scope."""

    def __init__(self, enc: Encoding, config: Config) -> None:
        self.enc = enc
        p = params(enc)
        self.s, self.n = state_at(enc, 0), state_at(enc, 1)
        self.config = config
        self.bounded = Bounded(STEP_RLIMIT)
        self.solver = self.bounded.solver
        self.solver.add(*_params_of(enc, p, config), *_below_clock(enc, self.s))
        self.solver.add(transition(enc, p, self.s, self.n, args_at(0)))

    def _ask(self, *assumptions: z3.BoolRef) -> z3.CheckSatResult:
        answer = self.bounded.check(*assumptions)
        if answer.result == z3.unknown:
            raise NotEncodable(f"a cross-check query was undecided: {answer.why_unknown()}")
        return answer.result

    def check(self, before: State, action: Action, after: State) -> str | None:
        """None when the SMT relation takes exactly the spec's step; otherwise what differs."""
        solver = self.solver
        solver.push()
        try:
            solver.add(matches(self.enc, self.s, before))
            solver.add(*arguments(self.enc, before, action))
            target = matches(self.enc, self.n, after)
            if self._ask(target) != z3.sat:
                return f"the SMT relation refuses {action!r} or its spec successor"
            if self._ask(z3.Not(target)) != z3.unsat:
                return (f"the SMT relation allows another successor for {action!r}: "
                        f"{_diff(solver, self.n)}")
            return None
        finally:
            solver.pop()


def _diff(solver: z3.Solver, n: SymState) -> str:
    model = solver.model()
    shown = [f"{k}={model.eval(v, model_completion=True)}" for k, v in n.items()
             if not k.startswith("procs")]
    return ", ".join(shown)


def first_disagreement(enc: Encoding, trace: Trace) -> str | None:
    """The first step of `trace` where the spec and the SMT relation disagree, or None."""
    checker = StepChecker(enc, trace.config)
    for number, before, action, after in trace.transitions():
        problem = checker.check(before, action, after)
        if problem is not None:
            return f"step {number} ({action!r}): {problem}"
    return None


__all__ = ["NotEncodable", "arguments", "first_disagreement", "matches"]


