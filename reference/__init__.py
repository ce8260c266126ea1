"""Reference implementation of the paired multimodal caches (sender shadow and receiver).

The front end (P0) keeps a metadata-only shadow of the engine's (P1) LRU of tensors and sends
``payload=None`` for items it believes P1 holds. The default variant, V4, keeps that saving and
stays safe under every drift source the project models (D1-D11, README "The model"):
references carry a tag, so P1 never pairs a tensor with placeholders of another processing;
a miss is one retryable error listing every missed identity; the front end invalidates
exactly those and the client resends, marked as a resend (``Request.resend``), which the
front end sends as payloads only: it cannot miss.

Limit (S4): an identity that a client reuses for different content (D7) is served consistently
(tensor and placeholders from one processing) but not necessarily from this request's content:
only binding identities to content (a content hash) gives freshness.

Usage, the front end, the engine and the retry helper working together::

    >>> import torch
    >>> from reference import (
    ...     Engine, FrontEnd, Placeholders, ProcessedItem, Request, RequestItem, retry, serve,
    ... )
    >>> def processor(content: object) -> ProcessedItem:
    ...     pixels = torch.tensor(content, dtype=torch.float32)
    ...     placeholders = Placeholders(offset=0, length=len(pixels))
    ...     return ProcessedItem({"pixel_values": pixels}, placeholders, token_key="pixel_values")
    >>> front_end = FrontEnd(budget=1 << 20, processor=processor)   # P0, V4 by default
    >>> engine = Engine(budget=1 << 20)                              # P1
    >>> def send(request: Request):
    ...     return serve(front_end, engine, request)
    >>> request = Request((RequestItem("img-1", [1.0, 2.0, 3.0]),))
    >>> inputs = retry(send, request, max_retries=2)
    >>> inputs[0].placeholders
    Placeholders(offset=0, length=3)
    >>> engine.clear()  # P1 loses its cache (D3); P0's shadow still says "hit"
    >>> inputs = retry(send, request, max_retries=2)  # miss, invalidate, resend: served
    >>> inputs[0].payload["pixel_values"].tolist()
    [1.0, 2.0, 3.0]
    >>> front_end.stats().invalidations
    1
"""

from __future__ import annotations

from reference.client import retry
from reference.engine import Engine
from reference.errors import (
    BadInputError,
    BadInputTypeError,
    BadInputValueError,
    CacheError,
    ClientError,
    DuplicateIdentityError,
    InvalidBudgetError,
    InvalidPayloadError,
    InvariantViolationError,
    MissingMediaError,
    MultiModalCacheMissError,
    NonceInUseError,
    ProcessorError,
    ReceiverCacheAssertionError,
    SenderCacheAssertionError,
    UnknownIdentityError,
    UnknownRequestError,
    UnsupportedTensorError,
)
from reference.frontend import FrontEnd, ProbedRequest
from reference.items import (
    MIN_ENTRY_BYTES,
    Placeholders,
    ProcessedItem,
    Processor,
    TensorTree,
    tree_nbytes,
)
from reference.lru import MIN_NODES, NODE_BYTES, ByteLru, CacheStats, validate_budget
from reference.messages import Message, ModelInput, Outgoing, Reply, Request, RequestItem, WireItem
from reference.pipeline import serve
from reference.receiver import ReceiverCache, ReceiverEntry, Resolution
from reference.sender import SenderCache, ShadowEntry
from reference.tags import TagSource
from reference.variants import (
    DEFAULT_VARIANT,
    V0,
    V1,
    V2,
    V3,
    V4,
    Variant,
    resolution_order,
)

__all__ = [
    "DEFAULT_VARIANT",
    "MIN_ENTRY_BYTES",
    "MIN_NODES",
    "NODE_BYTES",
    "V0",
    "V1",
    "V2",
    "V3",
    "V4",
    "BadInputError",
    "BadInputTypeError",
    "BadInputValueError",
    "ByteLru",
    "CacheError",
    "CacheStats",
    "ClientError",
    "DuplicateIdentityError",
    "Engine",
    "FrontEnd",
    "InvalidBudgetError",
    "InvalidPayloadError",
    "InvariantViolationError",
    "Message",
    "MissingMediaError",
    "ModelInput",
    "MultiModalCacheMissError",
    "NonceInUseError",
    "Outgoing",
    "Placeholders",
    "ProbedRequest",
    "ProcessedItem",
    "Processor",
    "ProcessorError",
    "ReceiverCache",
    "ReceiverCacheAssertionError",
    "ReceiverEntry",
    "Reply",
    "Request",
    "RequestItem",
    "Resolution",
    "SenderCache",
    "SenderCacheAssertionError",
    "ShadowEntry",
    "TagSource",
    "TensorTree",
    "UnknownIdentityError",
    "UnknownRequestError",
    "UnsupportedTensorError",
    "Variant",
    "WireItem",
    "resolution_order",
    "retry",
    "serve",
    "tree_nbytes",
    "validate_budget",
]
