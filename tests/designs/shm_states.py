"""States of the shared-memory design for the proofs' tests: a small instance sized by its
ring, readers and items; the states of a breadth-first exploration; and random walks that
choose an action kind first (a worker's check and copy are one kind, its read; so that reads
and frees keep up with puts), as steps or as the
states they reach."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable

from spec.config import Content
from spec.designs.shm import SHM, ShmConfig, ShmState
from spec.designs.shm.actions import ShmAction

Step = tuple[ShmState, ShmAction, ShmState]


def sized(environment: Iterable[str], ring: int, readers: int, items: int) -> ShmConfig:
    """Six identities of 1-3 bytes (two versions each under D7), one-byte headers."""
    sources = frozenset(environment)
    ids = ("a", "b", "c", "d", "e", "f")
    return ShmConfig(identities=ids, versions=2 if "D7" in sources else 1,
                     object_bytes=tuple((Content(x), 1 + n % 3) for n, x in enumerate(ids)),
                     header_bytes=1, ring_bytes=ring, max_object_bytes=3, readers=readers,
                     max_requests=80, max_items=items, environment=sources)


def explored(config: ShmConfig, limit: int) -> list[ShmState]:
    """The states a breadth-first search reaches before it holds `limit` of them."""
    start = SHM.initial(config)
    seen, frontier = {start}, deque([start])
    while frontier and len(seen) < limit:
        state = frontier.popleft()
        for action in SHM.enabled(config, state):
            after = SHM.step(config, state, action)
            if after not in seen:
                seen.add(after)
                frontier.append(after)
    return list(seen)


def steps(config: ShmConfig, seed: int, walks: int, length: int) -> list[Step]:
    """Every step of `walks` seeded random walks of at most `length` steps."""
    rng, found = random.Random(seed), []
    for _ in range(walks):
        state = SHM.initial(config)
        for _ in range(length):
            actions = SHM.enabled(config, state)
            if not actions:
                break
            kind = rng.choice(sorted({_kind(a) for a in actions}))
            action = rng.choice([a for a in actions if _kind(a) == kind])
            after = SHM.step(config, state, action)
            found.append((state, action, after))
            state = after
    return found


def _kind(action: ShmAction) -> str:
    """The walk's action kind: a worker's check and copy are one kind, its read."""
    name = type(action).__name__
    return "Read" if name in ("Check", "Copy") else name


def walked(config: ShmConfig, seed: int, walks: int, length: int) -> list[ShmState]:
    """The states `steps`'s walks reach, in order."""
    return [after for _, _, after in steps(config, seed, walks, length)]
