"""The values that move between client, front end (P0) and engine (P1).

All are immutable. What a client builds, ``Request`` and ``RequestItem``, checks its fields
at construction, with the errors ``serve()`` gives (a list of items, an int identity: one
line, `BadInputTypeError`); the rest are plain data, built in hot paths. The boundaries
validate what they receive all the same: ``FrontEnd.probe``, ``FrontEnd.handle_reply``,
``SenderCache.update``, ``ReceiverCache.resolve`` and ``Engine.receive``.

The ones built once per item or per request on the hit path (``Outgoing``, ``WireItem``,
``ModelInput``, ``Message``; ``ProbedRequest`` in the front end) are named tuples, not frozen
dataclasses: a frozen dataclass's ``__init__`` sets each field with
``object.__setattr__`` and costs 4-5x a tuple's construction, which was a third of the whole
hit path (``benchmarks/bench_reference.py``). They compare and hash by identity, as the
dataclasses did (``eq=False``): a payload's tensors have no boolean equality.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple, TypeVar

from reference._validate import check_exact, check_identity
from reference.errors import BadInputTypeError, describe
from reference.items import Placeholders, ProcessedItem, TensorTree

__all__ = [
    "Message",
    "ModelInput",
    "Outgoing",
    "Reply",
    "Request",
    "RequestItem",
    "WireItem",
]


NamedTupleClass = TypeVar("NamedTupleClass", bound=type[tuple[object, ...]])


def _same(self: object, other: object) -> bool:
    return self is other


def _not_same(self: object, other: object) -> bool:
    return self is not other


def _identity_hash(self: object) -> int:
    return id(self)


_BY_IDENTITY = {"__eq__": _same, "__ne__": _not_same, "__hash__": _identity_hash}


def compared_by_identity(cls: NamedTupleClass) -> NamedTupleClass:
    """Make a named tuple class compare and hash by identity, as a dataclass with
    ``eq=False`` does (see the module docstring: a payload's tensors have no boolean
    equality, and tuple equality would compare them)."""
    for name, method in _BY_IDENTITY.items():
        setattr(cls, name, method)
    return cls


@dataclass(frozen=True, slots=True)
class RequestItem:
    """One multimodal item as the client sends it.

    ``identity`` is the item's mm_hash (a content hash, or a client UUID used verbatim).
    ``content`` is the raw media given to the processor; None means UUID-only: the client
    trusts that the server still holds the item.
    """

    identity: str
    content: object | None = None

    def __post_init__(self) -> None:
        if type(self.identity) is not str or not self.identity:
            check_identity(self.identity)

    @property
    def uuid_only(self) -> bool:
        return self.content is None


def check_request_fields(items: object, resend: object) -> None:
    """A request's fields as every boundary wants them: a tuple of ``RequestItem`` (exactly:
    a subclass could change what the checks read) and a bool resend mark."""
    if type(resend) is not bool:
        raise BadInputTypeError(f"got resend {describe(resend)}, expected a bool")
    if type(items) is not tuple:
        check_exact("request items", items, tuple)
    for item in items:  # type: ignore[attr-defined]  # a tuple, checked above
        if type(item) is not RequestItem:
            check_exact("request item", item, RequestItem)


@dataclass(frozen=True, slots=True)
class Request:
    """A client request: its multimodal items, in prompt order.

    ``resend``: this attempt is the client's resend after a miss error (the retry helpers
    set it on every resend). Under ``resends_bypass_shadow`` (V4) the front end then reads
    nothing from its shadow: every item needs its media, is processed and sent as a payload.
    Under V0-V3 it changes nothing. A plain bool, checked where the request is received.
    """

    items: tuple[RequestItem, ...]
    resend: bool = False

    def __post_init__(self) -> None:
        check_request_fields(self.items, self.resend)

    @property
    def identities(self) -> tuple[str, ...]:
        return tuple(item.identity for item in self.items)

    def with_media(self, media: Mapping[str, object] | None = None) -> Request:
        """This request with ``media[identity]`` attached to every item ``media`` names.

        Items that already carry content keep it unless ``media`` names them; the resend
        mark is kept.
        """
        if media is not None and not isinstance(media, Mapping):
            raise BadInputTypeError(
                f"got media {describe(media)}, expected None or a mapping of identities to media"
            )
        try:
            if not media:
                return self
            items = tuple(
                replace(item, content=media[item.identity]) if item.identity in media else item
                for item in self.items
            )
        except Exception as error:  # a mapping whose lookups raise: user code, rejected
            raise BadInputTypeError(
                f"got media {describe(media)} whose lookups raised {type(error).__name__}, "
                "expected a mapping of identities to media"
            ) from None
        return Request(items, self.resend)


@compared_by_identity
class Outgoing(NamedTuple):
    """One item of a request on its way through P0's update (front end to sender cache).

    ``item``: the processed item if the identity missed at probe time, else None.
    ``content``: the raw media, for a late miss (None: UUID-only).
    """

    identity: str
    item: ProcessedItem | None
    content: object | None


@compared_by_identity
class WireItem(NamedTuple):
    """One item of a message from P0 to P1.

    ``payload`` None is a *reference*: P0 trusts that P1 caches the identity. ``tag`` is the
    processing the payload comes from, or the shadow entry a reference trusts (tagged
    variants only; None otherwise).
    """

    identity: str
    payload: TensorTree | None
    placeholders: Placeholders
    tag: int | None = None

    @property
    def is_reference(self) -> bool:
        return self.payload is None


@compared_by_identity
class Message(NamedTuple):
    """What P0 sends to P1 for one request."""

    request_id: int
    items: tuple[WireItem, ...]


@dataclass(frozen=True, slots=True)
class Reply:
    """P1's answer to a message, as P0 handles it: ``missed`` empty means success."""

    request_id: int
    missed: tuple[str, ...] = ()


@compared_by_identity
class ModelInput(NamedTuple):
    """What the engine hands to the model for one item: a tensor and its placeholders."""

    identity: str
    payload: TensorTree
    placeholders: Placeholders
