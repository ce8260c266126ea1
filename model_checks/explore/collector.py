"""The cyclic garbage collector paused while the explorer allocates states.

A search allocates millions of small objects (states, their tuples and dataclasses) and keeps
most of them, so each collection of the oldest generation traverses every object held so far,
and the younger generations are collected every few hundred allocations. None of them is
part of a reference cycle (a state is a tree of frozen values; the graph is flat arrays of
numbers), so reference counting frees every object the search drops, and the collector finds
nothing to free: on the 3-request cells it spent about a tenth of the CPU of building and
judging. `paused` turns it off inside its block and leaves it as it found it.

Turned on again, the collector would count every object allocated inside the block as young:
the first collection after it would traverse them all (every state the search holds), and
again one generation up. So the block's objects leave it as the oldest generation's, where
they would be had they survived collections all along (`gc.freeze` then `gc.unfreeze`: the
objects tracked so far moved to the oldest generation, which a full collection still reads).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; on leaving (an exception too), the collector is
    enabled again if it was on entry (a nested block leaves it off for the outer one)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()  # every tracked object into the permanent generation...
            gc.unfreeze()  # ...and from there into the oldest one: none counts as young
            gc.enable()
