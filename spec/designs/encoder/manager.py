"""The scheduler's encoder cache manager, as vLLM 0.33.0's `EncoderCacheManager` and the
scheduler's `_try_schedule_encoder_inputs` use it, over `EncoderState`'s entries: a hit by
identity alone, the guard comparing the cached number of embeddings with the request's
placeholders, allocation that evicts unreferenced entries oldest first, and the freeing of a
request's references once its placeholders are computed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spec.designs.encoder.config import EncoderConfig
from spec.designs.encoder.state import EncoderState, Entry


def free_slots(config: EncoderConfig, state: EncoderState) -> int:
    return config.cache_embeds - sum(e.embeds for e in state.entries)


def freeable_slots(config: EncoderConfig, state: EncoderState) -> int:
    held = {e.identity: e.embeds for e in state.entries}
    return free_slots(config, state) + sum(held[i] for i in state.freeable)


def reference(state: EncoderState, identity: str, rid: int) -> EncoderState:
    """`check_and_update_cache` on a hit: the request references the entry (taken out of
    the freeable list if nothing referenced it)."""
    entry = state.entry(identity)
    assert entry is not None
    freeable = tuple(i for i in state.freeable if i != identity)
    return _put(state.evolve(freeable=freeable), replace(entry, refs=entry.refs | {rid}))


def evict_for(config: EncoderConfig, state: EncoderState, needed: int
              ) -> EncoderState | None:
    """`can_allocate`'s space check: the state after evicting unreferenced entries, oldest
    first, until `needed` embeddings are free; None where even every freeable entry is not
    enough (nothing is evicted then)."""
    if needed <= free_slots(config, state):
        return state
    if needed > freeable_slots(config, state):
        return None
    while needed > free_slots(config, state):
        oldest, *rest = state.freeable
        state = state.evolve(entries=tuple(e for e in state.entries if e.identity != oldest),
                             freeable=tuple(rest))
    return state


def release(config: EncoderConfig, state: EncoderState, identity: str, rid: int
            ) -> EncoderState:
    """`free_encoder_input`: the request drops its reference; an entry nothing references
    becomes freeable (it stays cached until an allocation needs its space)."""
    entry = state.entry(identity)
    if entry is None or rid not in entry.refs:
        return state
    after = _put(state, replace(entry, refs=entry.refs - {rid}))
    if entry.refs == {rid}:
        after = after.evolve(freeable=(*after.freeable, identity))
    return after


def release_all(config: EncoderConfig, state: EncoderState, rid: int) -> EncoderState:
    """`free(request)`: every reference the request holds."""
    for entry in state.entries:
        if rid in entry.refs:
            state = release(config, state, entry.identity, rid)
    return state


@dataclass(frozen=True, slots=True)
class Planned:
    """What one scheduling pass decided for a request: the items of its chunk (a prefix of
    its pending items), the state after its hits and evictions, and whether the guard
    rejected it (naming why)."""

    state: EncoderState
    chunk: tuple[int, ...]
    allocate: tuple[int, ...]
    rejected: str | None = None


def plan(config: EncoderConfig, state: EncoderState, rid: int) -> Planned:
    """`_try_schedule_encoder_inputs` for request `rid`'s pending items, in order: an
    identity already allocated in this pass is a duplicate (the guard compares counts); a
    cached identity is a hit after the guard compares its embeddings with the placeholders;
    else space is made for it (evicting) or the chunk ends before it."""
    request = state.requests[rid]
    planned: dict[str, int] = {}
    chunk: list[int] = []
    allocate: list[int] = []
    to_schedule = 0
    budget = config.compute_embeds
    for index in range(request.scheduled, len(request.items)):
        item = request.items[index]
        wanted = config.size(item.placeholders)
        entry = state.entry(item.identity)
        known = planned.get(item.identity, entry.embeds if entry is not None else None)
        if known is not None and known != wanted and config.knobs.guard_compares_counts:
            return Planned(state, (), (), f"encoder cache entry for {item.identity!r} holds "
                           f"{known} embeddings, request {rid} item {index} expects {wanted}")
        if item.identity in planned:
            chunk.append(index)
            continue
        if entry is not None:
            state = reference(state, item.identity, rid)
            chunk.append(index)
            continue
        if wanted > budget:
            break
        made = evict_for(config, state, wanted + to_schedule)
        if made is None:
            break
        state = made
        to_schedule += wanted
        budget -= wanted
        planned[item.identity] = wanted
        chunk.append(index)
        allocate.append(index)
    return Planned(state, tuple(chunk), tuple(allocate))


def allocate(config: EncoderConfig, state: EncoderState, rid: int, index: int
             ) -> EncoderState:
    """`allocate` and the workers' encoder run: the entry sized by the placeholders, its
    output computed from the item's data."""
    item = state.requests[rid].items[index]
    entry = Entry(item.identity, config.size(item.placeholders), item.tensor,
                  frozenset({rid}))
    assert free_slots(config, state) >= entry.embeds, "allocated without space"
    return state.evolve(entries=(*state.entries, entry))


def _put(state: EncoderState, entry: Entry) -> EncoderState:
    return state.evolve(entries=tuple(entry if e.identity == entry.identity else e
                                      for e in state.entries))
