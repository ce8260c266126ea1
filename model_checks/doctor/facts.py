"""A vLLM deployment's facts and the drift sources they switch on.

`Deployment` is what an operator knows (flags, or a ``vllm serve`` command line); `SOURCES`
says, per drift source, which setting or client behaviour switches it on in vLLM, with its
public reference, and what removes the risk it brings. A source no fact decides is
*assumed* (it stays in the environment: a source you cannot rule out stays in), never
silently dropped. The spec's ids and titles come from `spec.Drift`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from model_checks.doctor.serve_line import ServeLineError, settings

__all__ = ["NO_CACHE", "OPERATOR", "PATCH", "PATCHED_VARIANT", "SOURCES", "Deployment",
           "Operator", "ServeLineError", "Source", "Status", "environment", "from_serve_line",
           "statuses"]


class Status(Enum):
    ON = "on"
    ASSUMED = "assumed"
    OFF = "off"


@dataclass(frozen=True)
class Deployment:
    """What an operator states about a vLLM deployment (None: not stated)."""

    client_uuids: bool = False
    rejections: bool = True
    sleep_mode: bool = False
    engine_only_clears: bool = False
    restarts: bool = False
    oversize: bool = False
    reordering: bool | None = None
    large_requests: bool | None = None
    size_skew: bool | None = None
    api_servers: int = 1
    data_parallel: int = 1
    external_lb: bool = False
    cache_gb: float = 4.0
    cache_type: str = "lru"
    client_handles: bool | None = None
    scale_out: bool = False
    tokens_only: bool = False
    tensor_parallel: int = 1
    pipeline_parallel: int = 1

    def takes_handles(self) -> bool:
        """Whether an endpoint takes shared-memory handles from clients: vLLM 0.33.0's
        token-in, token-out endpoint, registered by --enable-scale-out or --tokens-only
        (vllm/entrypoints/scale_out/factories.py); no other endpoint accepts or hands out
        one."""
        return self.scale_out or self.tokens_only

    def multiprocess(self) -> bool:
        """Whether the workers are processes of their own (tensor or pipeline parallel >= 2:
        vLLM's multiprocess executor), each reading every request it is sent."""
        return self.tensor_parallel * self.pipeline_parallel >= 2

    def pairing(self) -> str:
        """Which cache vLLM 0.33.0 builds (vllm.multimodal.cache.factories, in its order):
        "none" (cache off: --mm-processor-cache-gb 0), "processor_only" (no pairing: several
        API servers, or data parallelism balanced internally, whatever the cache type), else
        the cache type: "lru" (the paired shadow and receiver) or "shm" (the shared-memory
        object store)."""
        if self.cache_gb <= 0:
            return "none"
        if self.api_servers != 1 or (self.data_parallel != 1 and not self.external_lb):
            return "processor_only"
        return self.cache_type


@dataclass(frozen=True)
class Source:
    """How one drift source arises in vLLM: the fact, its reference, what removes it (in the
    model's terms); and for an operator (`OPERATOR`): the fact in a few words, the doctor's
    flag that rules it out, and what to change in vLLM's options or use."""

    drift: str
    arises: str
    reference: str
    removes: str


@dataclass(frozen=True)
class Operator:
    """One drift source in an operator's words: `fact` (a headline's reason), `rule_out`
    (the doctor's option stating it does not occur, "" when no fact rules it out) and
    `vllm` (what to set or do in vLLM to remove it)."""

    fact: str
    rule_out: str
    vllm: str


SOURCES: dict[str, Source] = {
    "D1": Source("D1", "the async front end awaits between updating the shadow and sending "
                 "the request, so requests can reach the engine in another order", "",
                 "update the shadow and send in one critical section"),
    "D2": Source("D2", "a request is rejected or aborted after the processor updated the "
                 "shadow (prompt too long, client gone)", "vllm#43941",
                 "reject before the processor updates the shadow, or invalidate the "
                 "request's identities when it is rejected"),
    "D3": Source("D3", "a client clears the engine core's cache alone (an engine-core client "
                 "calling its sleep, pause or reset directly); vLLM's own /sleep, /pause "
                 "with cache clear and reset_mm_cache clear the front end first",
                 "vllm#42995, vllm#47147",
                 "clear the front end's cache together with the engine's"),
    "D4": Source("D4", "sleep mode: /sleep, /pause with cache clear and reset_mm_cache clear "
                 "the front end's cache, then the engine's; a request processed in between "
                 "is recorded on P0 and wiped on P1", "",
                 "drain or abort in-flight requests before the clear"),
    "D5": Source("D5", "several API servers (api_server_count > 1) or data parallelism "
                 "balanced internally share engines", "vllm#22198, vllm#23717",
                 "vLLM itself: it disables the pairing there (MultiModalProcessorOnlyCache)"),
    "D6": Source("D6", "two threads update one shadow at once; vLLM runs every multimodal "
                 "processing on one worker thread", "",
                 "keep one processing thread (or lock the shadow)"),
    "D7": Source("D7", "clients send their own multi_modal_uuids and may reuse one for new "
                 "content", "vllm#55547, vllm#55546",
                 "content-hash identities (let vLLM hash the media), or tags (V3)"),
    "D8": Source("D8", "a request whose missed items together exceed the cache "
                 "(--mm-processor-cache-gb)", "",
                 "bound a request's media below the cache size"),
    "D9": Source("D9", "the sides size an item differently (leaves other than tensors are "
                 "sized by sys.getsizeof on each side)", "",
                 "size only tensor bytes, on both sides"),
    "D10": Source("D10", "the engine core restarts while the API server keeps its shadow",
                  "", "restart both processes together, or clear the front end's cache"),
    "D11": Source("D11", "items larger than --mm-processor-cache-gb: skipped on both sides "
                  "('cache if fits'), so a later uuid-only request misses", "vllm#52835",
                  "a cache larger than the largest item, or media with every request"),
}


OPERATOR: dict[str, Operator] = {
    "D1": Operator("requests may reach the engine out of order", "--reordering no",
                   "no vLLM option orders them (a client's retry recovers a miss)"),
    "D2": Operator("requests are rejected or aborted after processing", "--rejections no",
                   "no vLLM option prevents it (vllm#43941)"),
    "D3": Operator("a client clears the engine's cache alone", "--engine-only-clears no",
                   "clear only through vLLM's /sleep, /pause or reset_mm_cache, which "
                   "clear the front end's cache first"),
    "D4": Operator("sleep mode clears race in-flight requests", "no --sleep-mode",
                   "drain or abort requests before /sleep, /pause with cache clear or "
                   "reset_mm_cache, or leave --enable-sleep-mode off"),
    "D5": Operator("several API servers share an engine", "",
                   "vLLM disables the pairing itself there"),
    "D6": Operator("two threads update the shadow", "",
                   "vLLM processes multimodal inputs on one thread"),
    "D7": Operator("clients reuse uuids", "--client-uuids no",
                   "clients send no multi_modal_uuids (vLLM hashes the media)"),
    "D8": Operator("a request's media may exceed the cache", "--large-requests no",
                   "--mm-processor-cache-gb above the largest request's media (bound it with "
                   "--limit-mm-per-prompt)"),
    "D9": Operator("the sides may size an item differently", "--size-skew no",
                   "no vLLM option; items whose only leaves are tensors size alike"),
    "D10": Operator("the engine core restarts alone", "--restarts no",
                    "restart the API server with the engine core"),
    "D11": Operator("items larger than the cache occur", "--oversize no",
                    "--mm-processor-cache-gb above the largest item, or media with every "
                    "request"),
}
"""Each drift source in an operator's words (`Operator`)."""

PATCH = "patches/vllm-0.33.0-tags.diff"
"""The project's change to vLLM 0.33.0: its LRU pair becomes V3 (tags, references resolved
first; docs/vllm.md, "The change")."""

PATCHED_VARIANT = "V3"

NO_CACHE = ("--mm-processor-cache-gb 0 (no multimodal cache: nothing is paired, every item is "
            "processed again)")
"""The one vLLM option that removes every pairing risk, at the cost of the cache."""


def statuses(deployment: Deployment) -> dict[str, Status]:
    """Each drift source's status in `deployment` (only meaningful with the "lru" pairing)."""
    def flag(value: bool | None) -> Status:
        return Status.ASSUMED if value is None else Status.ON if value else Status.OFF

    return {
        "D1": flag(deployment.reordering), "D2": flag(deployment.rejections),
        "D3": flag(deployment.engine_only_clears), "D4": flag(deployment.sleep_mode),
        "D5": Status.OFF, "D6": Status.OFF,
        "D7": flag(deployment.client_uuids), "D8": flag(deployment.large_requests),
        "D9": flag(deployment.size_skew), "D10": flag(deployment.restarts),
        "D11": flag(deployment.oversize),
    }


def environment(deployment: Deployment) -> tuple[str, ...]:
    """The drift sources on or assumed, in id order."""
    found = statuses(deployment)
    return tuple(d for d in SOURCES if found[d] is not Status.OFF)


def from_serve_line(line: str, base: Deployment) -> Deployment:
    """`base` updated with the settings a ``vllm serve ...`` line gives, read as vLLM reads
    it (`serve_line`: every spelling, a ``--config`` file; other options are vLLM's and
    ignored here). `ServeLineError`: one line."""
    return replace(base, **settings(line))  # type: ignore[arg-type]
