"""L1-L4 restated as monitors over the implementation's own observations.

The monitors see what the implementation did (the messages its front ends sent, the misses
its engine reported, the replies its front ends took), never the spec's state; a finding is
passed to `fail(property id, reason)`, which decides whether it is a disagreement (the spec
keeps the property at that step) or the variant's weakness (the spec breaks it too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from model_checks.conform import adapter as api
from model_checks.conform.lru_lockstep.implementation import Attempt
from spec import State

Fail = Callable[[str, str], None]
"""`fail(property id, reason)`: an implementation-side property broke."""


@dataclass
class Monitors:
    """L1-L3: what each request is owed after a miss reply, and what must not happen again.

    `owed`: (rid, identity) -> the step of the miss reply listing it: the retry must send it
    with data (L1), unless `excused` (a payload for it went out on the same front end since,
    so a reference is then correct). `listed`: rid -> the identities of its last miss reply
    (L2: the retry's miss must not list them again). `watching`: rid -> the step of P1's miss
    (L3: its retry must not miss again while no drift event happens)."""

    owed: dict[tuple[int, str], int] = field(default_factory=dict)
    excused: set[tuple[int, str]] = field(default_factory=set)
    listed: dict[int, tuple[str, ...]] = field(default_factory=dict)
    watching: dict[int, int] = field(default_factory=dict)

    def drift(self) -> None:
        """A drift event happened: L3 assumes none between the miss and the retry."""
        self.watching.clear()

    def sent(
        self, rid: int, front_end: int, items: Sequence[api.WireItem],
        front_end_of: Callable[[int], int], fail: Fail,
    ) -> None:
        """L1: a message of request `rid` left front end `front_end`."""
        for item in items:
            key = (rid, item.identity)
            since = self.owed.pop(key, None)
            if since is not None and item.payload is None and key not in self.excused:
                fail("L1", f"the retry of request {rid} sent {item.identity} as a reference "
                           f"after the miss reply taken at step {since}")
            self.excused.discard(key)
        payloads = {item.identity for item in items if item.payload is not None}
        for owed_rid, identity in self.owed:
            same_front_end = front_end_of(owed_rid) == front_end
            if owed_rid != rid and same_front_end and identity in payloads:
                self.excused.add((owed_rid, identity))

    def received(self, rid: int, missed: tuple[str, ...], number: int, fail: Fail) -> None:
        """L3: P1 received request `rid` at step `number` and missed `missed`."""
        since = self.watching.pop(rid, None)
        if since is not None and missed:
            fail("L3", f"request {rid}: the retry after the miss at step {since} missed "
                       f"again ({', '.join(missed)}) with no drift event in between")
        if missed:  # L3 watches from P1's miss (as the spec's monitor)
            self.watching[rid] = number

    def replied(self, rid: int, missed: tuple[str, ...], number: int, fail: Fail) -> None:
        """L2, and L1's debts: the front end took the reply of request `rid` at step
        `number`, a miss of `missed` (empty: served)."""
        if not missed:
            return
        again = sorted(set(self.listed.get(rid, ())).intersection(missed))
        if again:
            fail("L2", f"request {rid}: its retry, which carried data for "
                       f"{', '.join(again)}, was answered with a miss for them")
        self.listed[rid] = missed
        self.owed.update({(rid, h): number for h in missed})
        self.excused.difference_update((rid, h) for h in missed)


def unfinished(state: State, attempts: Sequence[Attempt]) -> tuple[int, str] | None:
    """L4 at quiescence: the first request the implementation left without a final outcome
    where the spec gave it one, as (rid, how it ended); None if there is none (a request the
    spec leaves the same way is the spec's own L4 verdict, not a disagreement)."""
    for rid, attempt in enumerate(attempts):
        if attempt.outcome is None or not attempt.outcome.final_for_client:
            how = attempt.outcome.value if attempt.outcome else attempt.stage.value
            if state.requests[rid].outcome is attempt.outcome:
                continue
            return rid, how
    return None
