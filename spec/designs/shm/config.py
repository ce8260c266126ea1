"""The configuration of one instance of the shared-memory design.

Sizes are in the model's bytes: an object of `object_bytes` takes `object_bytes +
header_bytes` of the ring (vLLM's chunk header: a 4-byte id and a 4-byte size); a conformance
adapter states the implementation's own bytes in these units. A configuration a source is
needed for (a second content per identity, an object over the size limit, a request larger
than the ring) is rejected unless that source is enabled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from spec.config import Content, InvalidConfiguration

OBJECT_STORE = "O1"
"""The design's one variant: the object store as vLLM 0.33.0 ships it."""


@dataclass(frozen=True, slots=True)
class ShmKnobs:
    """What a mutant of the design changes: each field is one mechanism of the release;
    `ShmKnobs()` is the release."""

    reader_checks_id: bool = True
    """A reader compares the chunk header's id with the handle's before reading."""
    split_read: bool = True
    """A worker's check of a handle and its copy of the object are two steps, with P0 free
    to write between them, as in the release (off: one atomic step, the coarser model that
    cannot see a chunk overwritten after its check)."""
    client_handle_counts: bool = False
    """A client-supplied handle P0 accepts counts as an issued handle (the release does not
    count it: the readers' reads of it then pay for another handle's)."""
    frees_pinned: bool = False
    """FIFO freeing ignores the in-use flag: it frees a chunk whose handles are still in
    flight (the release stops at the first chunk in use)."""
    reader_counts_reads: bool = True
    """A worker's read counts in the chunk's in-use flag (off: a chunk once issued is never
    seen as read, and stays pinned)."""
    wraps_short_lap: bool = True
    """Allocation wraps to the next lap when the rest of this lap is too short for the chunk
    (off: the chunk runs past the buffer's end)."""


@dataclass(frozen=True, slots=True)
class ShmConfig:
    """A finite instance.

    identities: the identities (mm hashes) clients may name; versions: contents of the
    first identity (more than 1 only under D7). object_bytes: (content, bytes) pairs, 1 for
    a content not listed. header_bytes: ring bytes per chunk beyond its object. ring_bytes:
    the ring's data size. max_object_bytes: the largest object P0 puts (vLLM's max object
    size). readers: the workers that read every handle (vLLM's world size). max_requests,
    max_items: bounds of the client.
    """

    identities: tuple[str, ...] = ("a", "b")
    versions: int = 1
    object_bytes: tuple[tuple[Content, int], ...] = ()
    header_bytes: int = 1
    ring_bytes: int = 4
    max_object_bytes: int = 4
    readers: int = 2
    max_requests: int = 3
    max_items: int = 2
    variant: str = OBJECT_STORE
    environment: frozenset[str] = frozenset()
    knobs: ShmKnobs = ShmKnobs()

    def __post_init__(self) -> None:
        _validate(self)

    @staticmethod
    def from_json(data: Mapping[str, Any], environment: frozenset[str]) -> ShmConfig:
        """The configuration a witness file states (its constants as `describe` writes
        them, without environment or knobs), under `environment`."""
        sizes = tuple((Content(c["identity"], c["version"]), n) for c, n in data["object_bytes"])
        return ShmConfig(identities=tuple(data["identities"]), versions=data["versions"],
                         object_bytes=sizes, header_bytes=data["header_bytes"],
                         ring_bytes=data["ring_bytes"],
                         max_object_bytes=data["max_object_bytes"], readers=data["readers"],
                         max_requests=data["max_requests"], max_items=data["max_items"],
                         environment=environment)

    def enables(self, source: str) -> bool:
        return source in self.environment

    def contents(self) -> tuple[Content, ...]:
        """Every content a client may send: the first identity has `versions` contents (the
        reused one under D7), every other identity one."""
        first, *rest = self.identities
        return (*(Content(first, v) for v in range(self.versions)),
                *(Content(i) for i in rest))

    def size(self, content: Content) -> int:
        """The object's bytes (P0 checks them against `max_object_bytes`)."""
        return dict(self.object_bytes).get(content, 1)

    def chunk_bytes(self, content: Content) -> int:
        """The ring bytes the object's chunk takes."""
        return self.size(content) + self.header_bytes


def _validate(config: ShmConfig) -> None:
    positive = ("ring_bytes", "max_object_bytes", "readers", "max_requests", "max_items",
                "versions")
    for name in positive:
        value = getattr(config, name)
        _require(type(value) is int and value >= 1, f"{name} must be an int >= 1, got {value!r}")
    _require(type(config.header_bytes) is int and config.header_bytes >= 0,
             f"header_bytes must be an int >= 0, got {config.header_bytes!r}")
    _require(bool(config.identities) and len(set(config.identities)) == len(config.identities),
             f"identities {config.identities!r}: give at least one, each once")
    _require(config.versions == 1 or config.enables("D7"),
             f"versions={config.versions} reuses identities for new content; enable D7")
    _require(config.variant == OBJECT_STORE,
             f"the shared-memory design has one variant, {OBJECT_STORE}; got {config.variant!r}")
    for content, size in config.object_bytes:
        _require(content in config.contents(), f"object_bytes names {content!r}, not a content")
        _require(type(size) is int and size >= 1, f"object_bytes of {content!r} must be >= 1")
        _require(size <= config.max_object_bytes or config.enables("D11"),
                 f"{content!r} takes {size} bytes, over max_object_bytes "
                 f"{config.max_object_bytes}: enable D11 or shrink it")
    stored = [c for c in config.contents() if config.size(c) <= config.max_object_bytes]
    largest = max((config.chunk_bytes(c) for c in stored), default=0)
    _require(config.max_items * largest <= config.ring_bytes or config.enables("D8"),
             f"a request of {config.max_items} items of up to {largest} ring bytes can exceed "
             f"the ring's {config.ring_bytes}: enable D8 or enlarge the ring")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidConfiguration(message)
