"""The client: submits requests and retries those that failed with the miss error.

The retry is the client's (vLLM never retries): it resends the same contents with the media
attached to every item, at most `max_retries` times per request.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from spec.config import Config
from spec.drift import Drift
from spec.state import ClientItem, Outcome, Request, State
from spec.transitions.base import Action, describe


def request_fits_unless_d8(config: Config, items: tuple[ClientItem, ...]) -> bool:
    """Without D8, the items of one request that fit the budget together fit it too. An
    identity named twice counts once, at its largest content: a cache holds one entry per
    identity, so the request's second occurrence never needs room of its own."""
    if config.enables(Drift.D8):
        return True
    largest: dict[str, int] = {}
    for item in items:
        size = config.shadow_bytes(item.content)
        if size <= config.budget:
            largest[item.identity] = max(size, largest.get(item.identity, 0))
    return sum(largest.values()) <= config.budget


def well_formed(config: Config, items: tuple[ClientItem, ...]) -> bool:
    """Known identities, distinct unless the configuration admits duplicates (the same
    identity twice in one request, with the same content or, under D7, another); known
    versions; between 1 and max_items items."""
    identities = [i.identity for i in items]
    return (
        1 <= len(items) <= config.max_items
        and (config.duplicates or len(set(identities)) == len(identities))
        and all(i in config.identities for i in identities)
        and all(0 <= i.version < config.versions for i in items)
    )


@dataclass(frozen=True, slots=True)
class Submit(Action):
    """The client submits a new request to front end `front_end` (protocol, no drift; a
    version > 0 is identity reuse, D7; front end 1 exists only under D5; items over the budget
    together only under D8)."""

    items: tuple[ClientItem, ...]
    front_end: int = 0

    def guard(self, config: Config, state: State) -> bool:
        return (
            0 <= self.front_end < config.front_ends
            and _may_submit(config, state)
            and well_formed(config, self.items)
            and request_fits_unless_d8(config, self.items)
        )

    def apply(self, config: Config, state: State) -> State:
        request = Request(len(state.requests), self.front_end, self.items)
        return state.evolve(requests=(*state.requests, request))

    def drift_event(self) -> Drift | None:
        return Drift.D7 if any(i.version > 0 for i in self.items) else None

    def is_obligation(self) -> bool:
        return False

    @classmethod
    def may_be_owed(cls) -> bool:
        return False

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        if _may_submit(config, state):
            for items in all_requests(config):
                for front_end in range(config.front_ends):
                    yield cls(items, front_end)

    @classmethod
    def enabled_instances(cls, config: Config, state: State) -> Iterator[Action]:
        # The guard's other conjuncts read the configuration alone: decided once per
        # configuration (`_submittable`) instead of once per candidate and state.
        if _may_submit(config, state):
            yield from config.derived("submittable", _submittable)


describe(Submit, "submit", exercises=(Drift.D5, Drift.D7, Drift.D8))


def _may_submit(config: Config, state: State) -> bool:
    """The state's half of `Submit.guard`: a request left to submit, and room in flight."""
    return (
        len(state.requests) < config.max_requests
        and state.unfinished() < config.max_in_flight
    )


def _submittable(config: Config) -> tuple[Submit, ...]:
    """The configuration's half of `Submit.guard`: the candidates it admits, in order."""
    return tuple(
        Submit(items, front_end)
        for items in all_requests(config)
        for front_end in range(config.front_ends)
        if well_formed(config, items) and request_fits_unless_d8(config, items)
    )


def all_requests(config: Config) -> Iterator[tuple[ClientItem, ...]]:
    """Every well-formed item tuple the client may send, in a fixed order (with duplicates,
    the distinct tuples first, in the order without them)."""
    for length in range(1, config.max_items + 1):
        for identities in _identity_tuples(config, length):
            versions = itertools.product(range(config.versions), repeat=length)
            for version_choice in versions:
                for data_choice in itertools.product((True, False), repeat=length):
                    yield tuple(
                        ClientItem(i, v, d)
                        for i, v, d in zip(identities, version_choice, data_choice, strict=True)
                    )


def _identity_tuples(config: Config, length: int) -> Iterator[tuple[str, ...]]:
    """The identities of a request of `length` items: distinct ones, then (with duplicates)
    those that repeat one."""
    yield from itertools.permutations(config.identities, length)
    if config.duplicates:
        for identities in itertools.product(config.identities, repeat=length):
            if len(set(identities)) < length:
                yield identities


@dataclass(frozen=True, slots=True)
class Retry(Action):
    """The client retries a request that failed with the miss error, media attached to every
    item (recovery path, vllm#46747); at most `max_retries` times. A retry continues an
    existing request, so `max_in_flight` (a bound on new requests) does not apply to it."""

    rid: int

    def guard(self, config: Config, state: State) -> bool:
        if not 0 <= self.rid < len(state.requests):
            return False
        request = state.requests[self.rid]
        return request.outcome is Outcome.MISS and request.retries < config.max_retries

    def apply(self, config: Config, state: State) -> State:
        request = state.requests[self.rid]
        items = tuple(ClientItem(i.identity, i.version, True) for i in request.items)
        attempt = Request(request.rid, request.front_end, items, request.retries + 1)
        return state.with_request(attempt)

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        return (cls(r.rid) for r in state.requests if r.outcome is Outcome.MISS)

    @classmethod
    def enabled_instances(cls, config: Config, state: State) -> Iterator[Action]:
        # The guard read on each request itself (a request's rid is its index), without a
        # second lookup per candidate: asked in every state.
        return iter([cls(r.rid) for r in state.requests
                     if r.outcome is Outcome.MISS and r.retries < config.max_retries])


describe(Retry, "retry")
