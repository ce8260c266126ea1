"""Mutants of the shared-memory design: each turns off (or on) one mechanism of the release
with a knob (`spec.designs.shm.config.ShmKnobs`) and names the instance where that breaks a
property the release keeps there. A checker that misses a mutant's break, or finds the
release breaking the same property in the same instance, is wrong
(`tests/designs/test_design_mutants.py`).

`reader_checks_id=False` is not among them: on the release's split read a worker that
passed its check can copy an overwritten chunk, so wherever a stale handle can occur (D3, C1,
R1) the release breaks S1 too and no instance separates the two by a property. It is caught
elsewhere: the lockstep disagrees with it (the model side's `no_id_check`, the release's
`skip_id_check`), and without it the atomic read's S1 proof fails (`test_shm_proofs`).

`client_handle_counts` is not among them: it is a fix, not a fault (the release does not
count a client-supplied handle, and with three identities under C1 its readers' reads pay
for another handle's, which lets P0 free a chunk still in flight).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from spec.designs.shm.config import OBJECT_STORE, ShmConfig, ShmKnobs
from spec.designs.shm.design import SHM


@dataclass(frozen=True, slots=True)
class DesignMutant:
    """One mutant: its knobs, the environment and instance (`shape`: `ShmConfig` fields
    replacing the design's instance's) where `property_id` must break, and why it does."""

    name: str
    knobs: ShmKnobs
    environment: frozenset[str]
    property_id: str
    shape: tuple[tuple[str, Any], ...]
    why: str

    def config(self, knobs: ShmKnobs | None = None) -> ShmConfig:
        """The mutant's instance with its own knobs, or with `knobs` (`ShmKnobs()`: the
        release in the same instance)."""
        base = SHM.instance(OBJECT_STORE, self.environment)
        return dataclasses.replace(base, knobs=self.knobs if knobs is None else knobs,
                                   **dict(self.shape))


_SMALL: tuple[tuple[str, Any], ...] = (("max_requests", 2), ("readers", 1))
_THIRD_IDENTITY: tuple[tuple[str, Any], ...] = (*_SMALL, ("identities", ("a", "b", "c")))

MUTANTS: tuple[DesignMutant, ...] = (
    DesignMutant(
        "frees_pinned", ShmKnobs(frees_pinned=True), frozenset(), "S3", _THIRD_IDENTITY,
        "a third identity makes P0 free the oldest chunk to put it; freeing one whose handle "
        "is in flight lets the new chunk overwrite its header, and the worker's id check "
        "raises inside the engine"),
    DesignMutant(
        "reads_uncounted", ShmKnobs(reader_counts_reads=False), frozenset(), "U1",
        (("max_requests", 1), ("readers", 1)),
        "a read that does not count in the in-use flag leaves the chunk pinned after every "
        "reader read it: FIFO freeing stops at it forever"),
    DesignMutant(
        "no_wrap", ShmKnobs(wraps_short_lap=False), frozenset(), "S2",
        (*_THIRD_IDENTITY, ("ring_bytes", 5)),
        "a ring of 5 bytes leaves 1 byte at the end of a lap after two 2-byte chunks; placing "
        "the third there, instead of wrapping to the next lap, runs it past the buffer"),
)
"""Every mutant of the shared-memory design, each caught in its own small instance."""


def mutant_named(name: str) -> DesignMutant:
    for mutant in MUTANTS:
        if mutant.name == name:
            return mutant
    raise KeyError(f"no mutant {name!r}; the mutants are {', '.join(m.name for m in MUTANTS)}")
