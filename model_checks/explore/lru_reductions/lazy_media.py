"""Media flags chosen where P0 reads them: the client's choice of which items of a new
request carry media (`ClientItem.has_data`) made when P0 first handles the request, not when
the client submits it. Opt-in (`Reductions.lazy`, on with `GraphOptions.slots`).

`Submit` offers every flag choice for every item tuple (`spec.transitions.client
.all_requests`), yet no step reads a flag of a request until P0 handles its first attempt
(`P0Handle`, `P0HandleRejected`, `P0HandleRejectedUndo`, `P0Process`: each starts with
`process_attempt`, which reads every flag): no engine, drift or client step reads a request's
items, `Retry` applies to a missed attempt only (after P0 handled it) and sends every item's
media, and no property or monitor reads a client flag (L1 reads whether a *wire* item carries
data; I5 reads identities). So a search that has the client submit every new request with
media on every item (`lazy_enabled` keeps only those `Submit`s) and has P0 handle a fresh
request (never retried, still `SUBMITTED`) once per flag choice (`Decided`: the handling with
the request's flags set first) reaches, step for step, the spec's states with the flags of
fresh unhandled requests set to True, and nothing else:

- every spec path maps to a path of this search of the same length, through states equal
  but for those flags (its `Submit`s with their flags set, its first handlings `Decided` on
  the flags the `Submit` chose), which every property and monitor judges alike;
- every path of this search maps back (`submits_decided`): each `Decided` handling's flags
  go to the `Submit` that issued its rid (the k-th `Submit` issues rid k: rids are
  `len(requests)` and no record is ever dropped), and every state on the way differs from
  the spec's only in the flags of that fresh request, read by no step before the handling.

The handlings of one state share their work (`SharedSteps`): per flag choice, the flags are
set and the attempt processed (`process_attempt`) once for `P0Process` and every handling
that goes on to update, and updated to the send (`update_every_item`) once for `P0Handle` and
both rejections (`P0HandleRejected.rejected` takes the handled attempt): each `Decided` step
is the spec's own step from the state with the flags set, computed from shared parts
(`tests/explore/test_explore_lazy_media.py` compares them on every state of a sample, and
catches parts shared across flag choices or engines).

Verdicts and shortest lengths are therefore those of the search without it, and every
witness replays on the spec after `submits_decided`. The two funnels from graph paths to
spec actions apply it (`Graph.path_to`, the judge's product violations).
`tests/explore/test_explore_lazy_media.py` checks the merged relation step for step (the key
check, `key_check.check_key` with `merged`), compares verdicts and shortest lengths with the
search without forgetting, and plants three unsound variants the key check catches (the
flags merged under the spec's moves, moves that never choose a flag, flags merged after the
first handling too; the second agrees with every verdict on the sample, which is why the
key check is the test); `benchmarks/forgetting_soundness.py --slots` compares verdicts on
every matrix cell and spec mutant.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spec import Action, ClientItem, Config, State
from spec.drift import Drift
from spec.state import Request, Stage
from spec.transitions import P0Handle, P0HandleRejected, P0Process, Submit
from spec.transitions.front_end import process_attempt, update_every_item

HANDLINGS = (P0Handle, P0HandleRejected, P0Process)
"""The actions whose step starts with P0 reading every flag of the attempt
(`process_attempt`; `P0HandleRejectedUndo` is a `P0HandleRejected`)."""


@dataclass(frozen=True, slots=True)
class Decided(Action):
    """P0's handling `action` of a fresh request, taken with the request's media flags set
    to `flags` (one per item, in item order) first: the step the spec takes from the same
    state had the client's `Submit` chosen `flags`. An `Action` to the search (the compiled
    explorer checks the type of every action it applies); never one of the spec's own, which
    `submits_decided` gives back."""

    action: Action
    flags: tuple[bool, ...]

    @property
    def rid(self) -> int:
        rid: int = self.action.rid  # type: ignore[attr-defined]
        return rid

    def guard(self, config: Config, state: State) -> bool:
        return self.action.guard(config, state)

    def apply(self, config: Config, state: State) -> State:
        """The spec's step `action` from `state` with the flags set, its parts shared with
        the other handlings of `state` (`SHARED`) where it has them."""
        made = SHARED.step(config, state, self)
        if made is None:
            return self.action.apply(config, with_flags(state, self.rid, self.flags))
        return made

    def drift_event(self) -> Drift | None:
        return self.action.drift_event()

    def is_obligation(self) -> bool:
        return self.action.is_obligation()

    def renamed(self, rid: int) -> Decided:
        """The same choice for the handling of request `rid`."""
        return Decided(self.action.__class__(**{**self.action.arguments(), "rid": rid}),
                       self.flags)


class SharedSteps:
    """The parts the handlings of a fresh request share, for the last state they were
    taken from: per flag choice, the state with the flags set and its processed attempt
    (`PROCESSED`: the key's engine), and per engine the attempt updated to the send. The
    spec's handlings are these parts composed: `P0Process` the processed attempt,
    `P0Handle` it updated (`handle_attempt`), `P0HandleRejected` and its undo that with
    their rejection (`rejected`). Holds the state it was filled from (compared by identity,
    so never confused with a later state at the same address) and its configuration."""

    PROCESSED = -1
    """The engine of a key naming the processed attempt (no engine chosen yet)."""

    def __init__(self) -> None:
        self.config: Config | None = None
        self.state: State | None = None
        self.parts: dict[tuple[int, tuple[bool, ...], int], State] = {}

    def step(self, config: Config, state: State, decided: Decided) -> State | None:
        """`decided`'s handling from `state` with its flags set: the spec's step
        (`action.apply` on `with_flags`), from the parts shared with `state`'s others; None
        for a handling not made of these parts."""
        if state is not self.state or config is not self.config:
            self.config, self.state, self.parts = config, state, {}
        action, rid, flags = decided.action, decided.rid, decided.flags
        if isinstance(action, P0Process):
            return self.part(config, state, rid, flags, self.PROCESSED)
        if isinstance(action, P0Handle):
            return self.part(config, state, rid, flags, action.engine)
        if isinstance(action, P0HandleRejected):  # and its undo: `rejected` tells them apart
            return action.rejected(self.part(config, state, rid, flags, 0))
        return None

    def part(self, config: Config, state: State, rid: int, flags: tuple[bool, ...],
             engine: int) -> State:
        """The processed attempt (`engine` `PROCESSED`) or the attempt updated to the send
        to `engine`, of request `rid` with its flags set to `flags`, each made once."""
        key = self.key(rid, flags, engine)
        made = self.parts.get(key)
        if made is None:
            if engine == self.PROCESSED:
                made = process_attempt(config, with_flags(state, rid, flags), rid)
            else:
                processed = self.part(config, state, rid, flags, self.PROCESSED)
                made = update_every_item(config, processed, rid, engine)
            self.parts[key] = made
        return made

    def key(self, rid: int, flags: tuple[bool, ...], engine: int
            ) -> tuple[int, tuple[bool, ...], int]:
        """What tells two parts of one state apart: the request, its flags, the engine."""
        return rid, flags, engine


SHARED = SharedSteps()
"""The shared parts of the state whose handlings the search takes now (`Decided.apply`)."""


def with_flags(state: State, rid: int, flags: tuple[bool, ...]) -> State:
    """`state` with request `rid`'s items' media flags set to `flags`."""
    request = state.requests[rid]
    items = tuple(ClientItem(i.identity, i.version, flag)
                  for i, flag in zip(request.items, flags, strict=True))
    return state.with_request(request.evolve(items=items))


def fresh(request: Request) -> bool:
    """True for a request P0 has not handled yet and the client has not retried: the one
    whose flags are still the client's `Submit` choice, read by no step so far."""
    return request.stage is Stage.SUBMITTED and request.retries == 0


def lazy_enabled(state: State, actions: Sequence[Any]) -> list[Any]:
    """The actions this search takes for `actions` (the spec's enabled ones, in order):
    `Submit`s with media on every item only, and each first handling of a fresh request
    once per flag choice (all media first, as `all_requests` orders them)."""
    out: list[Any] = []
    for action in actions:
        if isinstance(action, Submit):
            if all(item.has_data for item in action.items):
                out.append(action)
        elif isinstance(action, HANDLINGS) and fresh(state.requests[action.rid]):
            count = len(state.requests[action.rid].items)
            out.extend(Decided(action, flags)
                       for flags in itertools.product((True, False), repeat=count))
        else:
            out.append(action)
    return out


def submits_decided(actions: Sequence[Any]) -> list[Any]:
    """The spec's actions for a path of this search (rids already the spec's own): each
    `Decided` handling's flags given to the `Submit` that issued its rid, and the handling
    itself. A path without `Decided` steps is returned as it is."""
    chosen = {a.rid: a.flags for a in actions if isinstance(a, Decided)}
    if not chosen:
        return list(actions)
    out: list[Any] = []
    issued = 0
    for action in actions:
        if isinstance(action, Submit):
            flags = chosen.get(issued)
            issued += 1
            if flags is not None:
                action = Submit(tuple(ClientItem(i.identity, i.version, flag) for i, flag
                                      in zip(action.items, flags, strict=True)),
                                action.front_end)
        elif isinstance(action, Decided):
            action = action.action
        out.append(action)
    return out
