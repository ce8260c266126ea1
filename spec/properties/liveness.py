"""Trace properties L1-L4, as bounded-response monitors over a finite trace.

Each is checked under the fairness assumption it states. L4 only judges a trace that ends
quiescent (see `spec.fairness`): before that, its obligations are not yet due.
"""

from __future__ import annotations

from spec.fairness import is_quiescent
from spec.observations import miss_taken, sent_message
from spec.properties.declare import Violation, trace_property
from spec.state import Message, Outcome
from spec.trace import Trace
from spec.transitions import P1Receive

FAIR_DELIVERY = (
    "every message and reply is eventually delivered and P0 eventually handles every submitted "
    "attempt"
)


@trace_property("L1", "miss leads to resend", FAIR_DELIVERY, statement="""
    After P0 takes a miss reply naming identity h for a request, the retry of that request
    (the message that resends h) carries h's data; it may send h as a reference only if a
    message that front end sent after the miss, before the retry's, carried h's data (P0
    then re-recorded h with its payload). A retry that is never sent owes nothing here (L4
    judges how it ended).""")
def miss_leads_to_resend(trace: Trace) -> Violation | None:
    owed: dict[tuple[int, str], int] = {}  # (rid, h) -> step of the miss reply
    resent: set[tuple[int, str]] = set()  # (rid, h) whose data another message carried since
    for number, before, action, after in trace.transitions():
        reply = miss_taken(before, action)
        if reply is not None:
            rid, missed = reply.rid, reply.missed
            owed.update({(rid, h): number for h in missed})
            resent.difference_update((rid, h) for h in missed)
        message = sent_message(before, after)
        if message is None:
            continue
        for item in message.items:
            key = (message.rid, item.identity)
            since = owed.pop(key, None)
            if since is not None and item.data is None and key not in resent:
                return Violation(
                    "L1", number,
                    f"the retry of request {message.rid} sent {item.identity!r} as a "
                    f"reference after the miss reported at step {since}, and no payload for "
                    "it was sent in between",
                )
            resent.discard(key)
        _note_payloads(trace, message, owed, resent)
    return None


def _note_payloads(
    trace: Trace, message: Message, owed: dict[tuple[int, str], int],
    resent: set[tuple[int, str]],
) -> None:
    """Another request's payload for an owed identity, from the same front end, excuses the
    retry's reference to it."""
    front_end_of = {r.rid: r.front_end for r in trace.final.requests}
    payloads = {item.identity for item in message.items if item.data is not None}
    for rid, identity in owed:
        same_front_end = front_end_of.get(rid) == message.front_end
        if rid != message.rid and identity in payloads and same_front_end:
            resent.add((rid, identity))


@trace_property("L2", "a resend never misses", FAIR_DELIVERY, statement="""
    A retry carries data for every item, so it is never answered with a miss for an
    identity the miss it retries listed (judged where P0 takes the reply, as the client sees
    it). It fails when P0 turns the resent item back into a reference that P1 cannot serve.""")
def resend_never_misses(trace: Trace) -> Violation | None:
    listed: dict[int, tuple[str, ...]] = {}  # rid -> identities its last miss reply listed
    for number, before, action, _ in trace.transitions():
        reply = miss_taken(before, action)
        if reply is None:
            continue
        rid, missed = reply.rid, reply.missed
        again = sorted(set(listed.get(rid, ())).intersection(missed))
        if again:
            return Violation(
                "L2", number,
                f"request {rid}: its retry, which carried data for {', '.join(again)}, was "
                "answered with a miss for them",
            )
        listed[rid] = missed
    return None


@trace_property(
    "L3", "bounded recovery",
    FAIR_DELIVERY + "; no drift event happens between the miss and the retry's delivery",
    statement="""
    If no new drift event happens after P1 reports a miss for a request, the first retry
    of that request succeeds at P1. Drift events are the steps that exercise a drift source
    (a clear, a reset, a restart, a rejection, a reordered delivery, an interleaved P0 step, a
    reused identity); standing drift (a second front end, size skew, oversized items, a
    request over the budget) is no event, so under it L3 can fail without one. The watch
    starts at P1's miss, not when P0 takes the reply: an event in between is after the
    miss.""",
)
def bounded_recovery(trace: Trace) -> Violation | None:
    watching: dict[int, int] = {}  # rid -> step of P1's miss, while no drift has happened
    for number, _, action, after in trace.transitions():
        if action.drift_event() is not None:
            watching.clear()
        if isinstance(action, P1Receive) and after.last_delivery is not None:
            delivery = after.last_delivery
            rid = delivery.message.rid
            since = watching.pop(rid, None)
            if since is not None and delivery.missed:
                return Violation(
                    "L3", number,
                    f"request {rid}: the retry after the miss at step {since} missed again "
                    f"({', '.join(delivery.missed)}) with no drift event in between",
                )
            if delivery.missed:
                watching[rid] = number
    return None


@trace_property(
    "L4", "eventual completion",
    FAIR_DELIVERY + "; finitely many drift events; the client retries a miss up to R times",
    statement="""
    Once the system is quiescent, every request has ended in success or in a clear,
    non-retryable client error: none crashed, hung, or ran out of retries.""",
)
def eventual_completion(trace: Trace) -> Violation | None:
    final = trace.final
    if not is_quiescent(trace.config, final):
        return None
    number = len(trace.steps)
    if final.fault is not None:
        return Violation("L4", number, f"the system stopped with {final.fault.kind.value}")
    for request in final.requests:
        if request.outcome is None or not request.outcome.final_for_client:
            how = request.outcome.value if request.outcome else request.stage.value
            extra = f" after {request.retries} retries" if request.outcome is Outcome.MISS else ""
            return Violation("L4", number, f"request {request.rid} ended as {how}{extra}")
    return None
