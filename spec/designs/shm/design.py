"""The shared-memory design as a `spec.designs.base.Design`: its sources, refusals,
properties, instance builder and transition system."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from spec.config import Content, InvalidConfiguration
from spec.designs.base import DesignProperty, DriftSource, check_environment, check_variant
from spec.designs.shm.actions import ACTION_TYPES, ShmAction, candidates
from spec.designs.shm.config import OBJECT_STORE, ShmConfig
from spec.designs.shm.properties import PROPERTIES
from spec.designs.shm.state import Handle, ShmState, initial_state
from spec.transitions import InvalidAction

SOURCES: tuple[DriftSource, ...] = (
    DriftSource("D1", "reordered delivery",
                "the engine executes sent requests in another order than P0 processed them"),
    DriftSource("D2", "request lost after P0 issued its handles",
                "a request P0 processed never reaches the workers (rejected before it is "
                "sent, or aborted while it waits): its handles are never read"),
    DriftSource("D3", "P0 clears the store",
                "P0's clear drops every chunk and restarts the data range while handles it "
                "issued are in flight; the ids keep increasing (reset_mm_cache, /sleep, and "
                "pause_generation, whose default cache clear runs before the engine pauses "
                "in every mode: in keep mode the queued requests resume after it)"),
    DriftSource("D7", "identity reused for new content",
                "a client names new content with an identity P0 has a chunk for"),
    DriftSource("D8", "request larger than the ring",
                "a request's items together take more than the ring: its own chunks, not "
                "yet read, leave no room for the rest"),
    DriftSource("D11", "object over the size limit",
                "an object larger than the store's object size limit"),
    DriftSource("C1", "client-supplied handle",
                "a client sends back a handle P0 issued earlier; P0 checks it is the key's "
                "current chunk and passes it on without counting it as issued (only the "
                "token-in endpoint takes one: --enable-scale-out or --tokens-only)"),
    DriftSource("R1", "preempted request re-sent to the workers",
                "with a multiprocess executor (tensor or pipeline parallel >= 2) and the V2 "
                "model runner, a preempted request is scheduled again as a new request with "
                "its handles: every worker reads them again, reads P0 never counted"),
)

REFUSED: dict[str, str] = {
    "D4": "a worker's clear does nothing to the store (readers hold no cache of their own), "
    "so a clear racing in-flight requests is P0's clear, D3",
    "D5": "vLLM uses no IPC cache with several API processes or internally balanced "
    "data-parallel engines (the cache factory falls back to a processor-only cache), and "
    "the store has one writer",
    "D6": "P0 processes one request's touches, updates and release in one synchronous call, "
    "so no other request's update interleaves with them",
    "D9": "both sides read one object in one store: an object has one size",
    "D10": "P0 does not restart alone: the workers die with the engine, and the store's "
    "shared-memory segment is named afresh for each process tree "
    "(VLLM_OBJECT_STORAGE_SHM_BUFFER_NAME); with that name fixed by hand, a second P0 "
    "either fails to start (FileExistsError: the segment exists) or creates a new segment "
    "the workers do not map, where handles issued before keep reading and every new "
    "handle fails its signature: a topology of two stores this design does not model",
}


NOTES: tuple[str, ...] = (
    "A worker's read is two steps, as in the release: `SingleWriterShmObjectStorage.get` "
    "checks the handle (its signature, then the chunk header's id), then copies the object "
    "and counts the read under the workers' lock, which P0 never takes; P0 may write "
    "between the two (`Check`, `Copy`). S1 is decided on that split read: proved for every "
    "instance where no chunk can be freed while a read of it is owed (D1+D2+D7+D8+D11, "
    "`model_checks/designs/shm_restricted.py`), broken under D3, C1 and R1, where a worker "
    "that passed its check copies another object with no error (the D3 witness replays on "
    "the release's classes with the interleaving forced by the adapter, docs/vllm.md). "
    "With the read as one step (the knob `split_read=False`) no run of the same instance "
    "breaks S1 (`tests/designs/test_shm_proofs.py`).",
    "R1 exists only with a multiprocess executor (tensor or pipeline parallel >= 2) and the "
    "V2 model runner (vLLM's default): the scheduler sends a resumed request to the workers "
    "as a new one and `strip_covered_mm_data` keeps its handles, so every worker reads them "
    "again, reads P0 never counted; no drift source of the client's is needed for the "
    "engine to die. The LRU design has no such action: its receiver cache is read in the "
    "engine core before the scheduler (docs/vllm.md, \"What runs each spec action\").",
    "C1 needs the token-in, token-out endpoint (`--enable-scale-out` or `--tokens-only`): no "
    "other endpoint accepts a handle, and none hands one out (handles are signed with the "
    "store's secret; `/render` skips the multimodal cache). The doctor assumes C1 only with "
    "one of those flags.",
    "D3 includes `pause_generation`: its default cache clear runs before the engine pauses, "
    "in every mode; in `keep` mode the queued requests resume after it and fail their "
    "check. D10 is refused (below), and with it every state the conformance adapter could "
    "only build by swapping shared-memory segments: the adapter reaches each state through "
    "the release's own calls.",
)
"""What the design's section of docs/drift-combinations.md says beyond its answers."""


@dataclass(frozen=True)
class ShmDesign:
    """The shared-memory object store (vLLM 0.33.0, `--mm-processor-cache-type shm`)."""

    name: str = "shm"
    title: str = "shared-memory object store"
    variants: tuple[str, ...] = (OBJECT_STORE,)
    sources: tuple[DriftSource, ...] = SOURCES
    properties: tuple[DesignProperty, ...] = PROPERTIES
    notes: tuple[str, ...] = NOTES

    @property
    def refused(self) -> Mapping[str, str]:
        return REFUSED

    rungs: tuple[str, ...] = ("2 requests", "3 requests")
    trace_tags: tuple[type, ...] = ()

    def instance(self, variant: str, environment: frozenset[str], rung: int = 0
                 ) -> ShmConfig:
        """Two identities, two readers, a ring of 4 bytes (two 1-byte objects with their
        1-byte headers), requests of up to two items: two requests at rung 0, three at 1. A
        source adds to it, so that an environment's instance has every behaviour of its
        subsets': D7 a second content of the first identity, D8 a third item per request
        (three chunks exceed the ring), D11 a third identity whose object exceeds the object
        size limit."""
        check_variant(self, variant)
        check_environment(self, environment)
        if not 0 <= rung < len(self.rungs):
            raise ValueError(f"rung {rung}: the shm design's rungs are 0..{len(self.rungs) - 1}")
        identities: tuple[str, ...] = ("a", "b")
        sizes: tuple[tuple[Content, int], ...] = ()
        if "D11" in environment:
            identities, sizes = ("a", "b", "c"), ((Content("c"), 5),)
        return ShmConfig(identities=identities, versions=2 if "D7" in environment else 1,
                         object_bytes=sizes, max_items=3 if "D8" in environment else 2,
                         max_requests=2 + rung, environment=environment)

    def initial(self, config: ShmConfig) -> ShmState:
        return initial_state(config.readers)

    def enabled(self, config: ShmConfig, state: ShmState) -> list[ShmAction]:
        if state.fault is not None:
            return []
        return [a for a in candidates(config, state) if a.guard(config, state)]

    def step(self, config: ShmConfig, state: ShmState, action: ShmAction) -> ShmState:
        """The next state; raises InvalidAction (changing nothing) for an action not enabled."""
        if state.fault is not None or not _available(config, action) or not action.guard(
                config, state):
            raise InvalidAction(f"{action!r} is not enabled in this state")
        cleared = state.evolve(last_reads=()) if state.last_reads else state
        return action.apply(config, cleared)

    def is_quiescent(self, config: ShmConfig, state: ShmState) -> bool:
        return not state.queued and not state.executed

    def config_from_json(self, data: Mapping[str, Any], variant: str,
                         environment: frozenset[str]) -> ShmConfig:
        check_variant(self, variant)
        return ShmConfig.from_json(data, environment)

    def action_to_json(self, action: ShmAction) -> dict[str, Any]:
        return {"action": type(action).__name__, **_plain(asdict(action))}

    def action_from_json(self, data: Mapping[str, Any]) -> ShmAction:
        by_name = {t.__name__: t for t in ACTION_TYPES}
        kind = by_name.get(str(data.get("action")))
        if kind is None:
            raise InvalidAction(f"no shm action {data.get('action')!r}; one of {list(by_name)}")
        values = {f.name: _typed(f.name, data[f.name]) for f in fields(kind)}
        return kind(**values)


def _available(config: ShmConfig, action: ShmAction) -> bool:
    return action.requires is None or config.enables(action.requires)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _content(data: Any) -> Content:
    return Content(str(data["identity"]), int(data["version"]))


def _typed(name: str, value: Any) -> Any:
    if name == "contents":
        return tuple(_content(c) for c in value)
    if name == "handle":
        return Handle(value["key"], value["address"], value["id"], value["epoch"],
                      _content(value["placeholders"]))
    return value


SHM = ShmDesign()

__all__ = ["REFUSED", "SHM", "SOURCES", "InvalidConfiguration", "ShmDesign"]
