"""Ended requests forgotten: the state key the explorer deduplicates on, where a request that
has ended keeps only what the properties still read of it. Opt-in (`GraphOptions.forget`).

A request has *ended* (`ended`) when its attempt is done with an outcome the client never
retries (success, a client error, a rejection, P0's assertion, or a miss with no retry left)
and no message, reply or delivery names its rid (a guard: the spec takes a request's message
and reply before it is done, so on the instances searched none names a done one). From then
on no action reads its record: the client's `Submit` reads only how many requests there are
(`len(requests)`: the bound, and the fresh rid) and how many are unfinished (an ended
request is done); `Retry` reads a miss with a retry left; every front-end, engine and drift
step reads the request its message, reply or stage names (`SUBMITTED`, `PROCESSED`,
`UPDATING`, `IN_FLIGHT`), never a done one; and no step changes it again.

What the properties and monitors read of an ended request:

- S3 flags a request that ended with P0's assertion; L4 (the spec's check at a quiescent
  state, and the graph's test for an unfinished request in a fair cycle) reads whether its
  outcome is final for the client, and a miss; so the key keeps the set of ended requests'
  outcome classes (`outcome_class`: P0's assertion, a miss, or final for the client);
- I5 reads its items and front end, which never change after `Submit` but for `Retry`'s
  media flag; they were judged in every state where the request was unfinished, which lie
  on every path to a state where it has ended, so a break of I5 is met first at a state this
  key keeps whole (a shortest counterexample is no longer);
- L1's monitor reads the front end of a request it owes a payload to when another request's
  message is sent; an ended request sends nothing again, so what it owes is never judged;
- no other property or monitor reads a request that no message, reply or delivery names.

Unread media flags forgotten too. Whether the client sent an item's media (`ClientItem.has_data`)
is read only by P0 handling the attempt: `process_attempt` reads every item's flag (a missed
item without media is a client error), and the update reads the flag of an item probed as a
hit (`work.processed` None) that it has not updated yet (V3's late miss). Once P0 has
processed an item or updated it, and for every item once the attempt is sent (`IN_FLIGHT`) or
done, no step reads the flag again before `Retry` overwrites it (a resend carries every
item's media), and no property or monitor reads it (L1 reads whether a *wire* item carries
data). So the key sets such flags to True (`media_forgotten`): two states that differ only
there enable the same actions (`Submit` names the new request's items only), step to states
that differ only there again, and are judged alike.

So the key (`forgetting_key`) is, with unread media flags forgotten, the state with its ended
requests dropped (the unfinished
ones keep their rids) and the processings only they held forgotten (the processing renaming
of `canonical.py`, applied again after the drop), with the number of requests and the set of
ended outcome classes. Two states with equal keys have the same enabled actions, the
successors of each action have equal keys again, and every property judges them alike: the
relation is a bisimulation with the same action labels. The explorer expands the first
real state it meets of each key (`Reductions.fingerprint` replaces `hash`), so every stored
state is a real spec state and every tree path replays on the spec; an edge leads to the
stored state with its real successor's key. The judge rebuilds the graph without this key
before reporting a fair lasso (a cycle of keys need not close on real states), as it does for
identity symmetry. `tests/explore/test_explore_forgetting.py` compares verdicts and shortest
lengths with the unforgetting search on a sample of cells and on spec mutants;
`benchmarks/forgetting_soundness.py` on every matrix cell.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from model_checks.explore.lru_reductions.canonical import canonical
from spec import ClientItem, Config, Outcome, State
from spec.state import Request, Stage


def ended(config: Config, state: State) -> frozenset[int]:
    """The rids of the requests that have ended (module docstring)."""
    over = [r.rid for r in state.requests if r.stage is Stage.DONE and _final(config, r)]
    if not over:
        return frozenset()
    named = {m.rid for m in state.to_engine} | {r.rid for r in state.to_front_end}
    delivery = state.last_delivery
    if delivery is not None:
        named.add(delivery.message.rid)
        named.update(s.rid for s in delivery.served)
    return frozenset(rid for rid in over if rid not in named)


def forgetting_key(config: Config, state: State) -> Hashable:
    """The key `state` is deduplicated on: with unread media flags forgotten
    (`media_forgotten`), the state itself when no request has ended, else (the state without
    its ended requests, processings renamed again; the number of requests; the ended outcome
    classes)."""
    state = media_forgotten(state)
    gone = ended(config, state)
    if not gone:
        return state
    requests = state.requests
    kept = tuple(r for r in requests if r.rid not in gone)
    classes = frozenset(outcome_class(requests[rid]) for rid in gone)
    return canonical(state.evolve(requests=kept)), len(requests), classes


def media_forgotten(state: State) -> State:
    """`state` with every media flag no step reads again set to True (module docstring);
    `state` itself when there is none."""
    requests = state.requests
    kept = tuple(map(media_read, requests))
    if all(new is old for new, old in zip(kept, requests, strict=True)):
        return state
    return state.evolve(requests=kept)


def media_read(request: Request) -> Request:
    """`request` with the media flags of its items that no step reads again set to True:
    all of them once the attempt is sent or done; before, those of the items P0 processed
    or updated already (`process_attempt` reads every flag while the attempt is
    `SUBMITTED`). `request` itself when nothing changes."""
    stage = request.stage
    if stage is Stage.SUBMITTED:
        return request
    items = request.items
    for item in items:
        if not item.has_data:
            break
    else:  # every flag set already
        return request
    work = request.work
    if stage is Stage.IN_FLIGHT or stage is Stage.DONE:
        unread: Sequence[int] = range(len(items))
    elif work is None:
        return request  # not a stage P0 leaves without its work: keep every flag
    else:
        updated = set(work.order[:work.done])
        unread = [i for i, pid in enumerate(work.processed) if pid is not None or i in updated]
    if all(items[i].has_data for i in unread):
        return request
    gone = set(unread)
    return request.evolve(items=tuple(
        ClientItem(item.identity, item.version, True) if i in gone else item
        for i, item in enumerate(items)))


def _final(config: Config, request: Request) -> bool:
    """True when the request's outcome is one the client never retries."""
    outcome = request.outcome
    return outcome is not None and (outcome is not Outcome.MISS
                                    or request.retries >= config.max_retries)


def outcome_class(request: Request) -> Outcome:
    """What S3 and L4 read of an ended request's outcome: P0's assertion and a miss are kept,
    every outcome final for the client is one class (`Outcome.SUCCESS`)."""
    outcome = request.outcome
    assert outcome is not None
    return Outcome.SUCCESS if outcome.final_for_client else outcome
