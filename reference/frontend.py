"""The front end (P0): request-level wiring around the sender cache.

A request goes through two calls, as in the real front end, whose awaits let other requests
interleave between them (D1):

1. ``probe(request)``: validate, probe the shadow (no reordering), reject UUID-only items that
   miss (``MissingMediaError``, nothing changed), run the processor on the missed items only.
2. ``update(probed)``: the sender cache's update (touch all, per item), then the message.

A resend (``Request.resend``, the client's retry after a miss) under V4 reads nothing from the
shadow: its probe finds no hits (every item processed; a UUID-only item is the same
``MissingMediaError``), and its update records every item afresh and sends it as a payload,
in request order. Under V0-V3 the mark changes nothing.

``prepare(request)`` does both at once. ``handle_reply`` closes a request: on a miss reply it
invalidates exactly the reported identities (vllm#46747). ``abandon`` closes a request that
was prepared but never reached the engine, keeping what the update recorded (the protocol's
D2); ``withdraw`` closes it and drops those records again (what ``reference.serve`` does when
the engine rejects a message: P0 then trusts nothing P1 never received).

Failure atomicity: a call that raises changes nothing. ``probe`` runs the processor before
it records the request; ``update`` keeps the request probed until the sender cache's update
has succeeded (a processor raising on a late miss, V3, leaves the shadow and the records as
they were, and the request can be updated again or abandoned); ``prepare`` abandons the
request it probed if its update raises.

Thread safety: the request counter and the records of probed and outstanding requests are
guarded by ``_lock``, which is the sender cache's own lock: on the trusted path
(``FrontEnd._trusted``) one acquisition covers the records and the shadow together, and the
front end never calls a public method of its sender while holding it. Between ``probe`` and
``update`` the shadow may change; that window is the protocol's (late misses), not a race in
this class.

Validation happens once, at this class's boundary: on the trusted path the sender cache's
own checks are skipped for what the front end built from a request it checked.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from reference._validate import (
    check_exact,
    check_identities,
    check_identity,
    check_instance,
    check_request_id,
    is_async_callable,
)
from reference.errors import (
    BadInputTypeError,
    BadInputValueError,
    MissingMediaError,
    UnknownIdentityError,
    UnknownRequestError,
    describe,
    short,
    short_list,
)
from reference.items import ProcessedItem, Processor, run_processor
from reference.lru import CacheStats
from reference.messages import (
    Message,
    Outgoing,
    Reply,
    Request,
    RequestItem,
    check_request_fields,
    compared_by_identity,
)
from reference.sender import SenderCache
from reference.tags import TagSource
from reference.variants import DEFAULT_VARIANT, Variant

__all__ = ["FrontEnd", "ProbedRequest", "processed_item", "repeated_contents"]

_new_tuple = _new_outgoing = tuple.__new__  # named tuples without their __new__ frame


@compared_by_identity
class ProbedRequest(NamedTuple):
    """A request between ``probe`` and ``update``: its id, what hit, what was processed.
    (A named tuple for speed, compared by identity: see ``reference.messages``.)

    ``processed``: per missed identity, the processing of its first item. ``repeats``: per
    item index, the processing of a later item of an identity the request names twice whose
    content is another object than the first item's (under identity reuse, another content;
    an equal object is the same content, processed once: the processor is deterministic).
    ``processed_item`` reads both."""

    request_id: int
    request: Request
    hits: frozenset[str]
    processed: dict[str, ProcessedItem]
    repeats: Mapping[int, ProcessedItem] = MappingProxyType({})


def processed_item(probed: ProbedRequest, index: int) -> ProcessedItem | None:
    """The processing of item ``index`` of ``probed``'s request (None: a probed hit)."""
    repeats = probed.repeats
    if repeats and index in repeats:
        return repeats[index]
    return probed.processed.get(probed.request.items[index].identity)


def repeated_contents(items: tuple[RequestItem, ...], hits: frozenset[str]) -> list[int]:
    """The indices of the missed items whose identity an earlier item names with another
    content object: each is processed on its own (``ProbedRequest.repeats``)."""
    first: dict[str, object] = {}
    repeated = []
    for index, item in enumerate(items):
        if item.identity in hits:
            continue
        if item.identity not in first:
            first[item.identity] = item.content
        elif item.content is not first[item.identity]:
            repeated.append(index)
    return repeated


class _RequestRecords:
    """A front end's records of its requests: the ids it gave, the requests probed and not
    yet updated (``_probed``), the ones sent and not yet closed (``_outstanding``: id -> the
    identities the message named). Every record is read and changed under ``_lock``.
    ``FrontEnd`` adds the requests' path through the sender cache."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._probed: dict[int, ProbedRequest] = {}
        self._outstanding: dict[int, frozenset[str]] = {}

    def _is_probed(self, probed: object) -> bool:
        """Is ``probed`` the record of a request probed here and not yet updated?"""
        request_id = getattr(probed, "request_id", None)
        with self._lock:
            return type(request_id) is int and self._probed.get(request_id) is probed

    def _with_late(
        self, probed: ProbedRequest, late: dict[str, ProcessedItem],
        late_repeats: dict[int, ProcessedItem] | None = None,
    ) -> ProbedRequest:
        """Replace the record ``probed`` by one that also carries ``late``, the items the
        caller processed for probed hits the shadow lost (the asyncio front end's, awaited;
        ``late_repeats``: per index, a later item of such an identity with another content);
        the update uses them only where the shadow still misses. Raises as ``update`` does
        if ``probed`` is not a probed request of this front end."""
        replacement = _new_tuple(ProbedRequest, (
            probed.request_id, probed.request, probed.hits - late.keys(),
            {**late, **probed.processed}, {**(late_repeats or {}), **probed.repeats}))
        with self._lock:
            if self._probed.get(probed.request_id) is not probed:
                raise UnknownRequestError(
                    f"got probed request {probed.request_id!r}, expected one probed by this "
                    "front end and not yet updated"
                )
            self._probed[probed.request_id] = replacement
        return replacement

    def _check_outstanding(self, message: Message) -> None:
        """Raise unless ``message`` is what ``update`` returned for an outstanding request."""
        with self._lock:
            self._sent_items(message)

    def _sent_items(self, message: Message) -> None:
        """``_check_outstanding``'s check; the caller holds ``_lock``."""
        if type(message) is not Message:
            check_exact("message", message, Message)
        if type(message.request_id) is not int:
            check_request_id(message.request_id)
        items = message.items
        sent = self._outstanding.get(message.request_id)
        if sent is None:
            raise UnknownRequestError(
                f"got a message of request {message.request_id!r}, expected one of the "
                f"{len(self._outstanding)} outstanding requests"
            )
        if type(items) is not tuple or len(items) < len(sent) or any(
                getattr(item, "identity", None) not in sent for item in items) or (
                len(items) != len(sent) and len({item.identity for item in items}) != len(sent)):
            raise BadInputValueError(
                f"got a message of request {message.request_id} whose items are not "
                "the ones this front end sent, expected the message update returned"
            )

    def abandon(self, request_id: int) -> None:
        """Forget a request that will never get a reply (rejected after update, aborted)."""
        check_request_id(request_id)
        with self._lock:
            if request_id in self._outstanding:
                del self._outstanding[request_id]
            elif request_id in self._probed:
                del self._probed[request_id]
            else:
                raise UnknownRequestError(
                    f"got request {request_id!r}, expected a probed or outstanding request"
                )

    def outstanding(self) -> tuple[int, ...]:
        """Ids of requests sent and not yet replied to or abandoned, oldest first."""
        with self._lock:
            return tuple(self._outstanding)

    def probed(self) -> tuple[int, ...]:
        """Ids of requests probed and not yet updated or abandoned, in increasing order."""
        with self._lock:
            return tuple(sorted(self._probed))


class FrontEnd(_RequestRecords):
    """P0: one sender cache, one processor. Several front ends may share one engine (D5)."""

    def __init__(
        self,
        budget: int,
        processor: Processor,
        *,
        variant: Variant = DEFAULT_VARIANT,
        tags: TagSource | None = None,
    ) -> None:
        if not callable(processor) or is_async_callable(processor):  # first: builds nothing
            raise BadInputTypeError(
                f"got processor {describe(processor)}, expected a callable content -> "
                "ProcessedItem (a plain one, not async)"
            )
        self._sender = SenderCache(budget, variant=variant, tags=tags)
        self._processor = processor
        super().__init__()
        # One lock for the records and the shadow: the trusted path (``_trusted``) reads and
        # changes both in one acquisition.
        self._lock = self._sender._lock

    @property
    def sender(self) -> SenderCache:
        return self._sender

    @property
    def variant(self) -> Variant:
        return self._sender.variant

    def _trusted(self) -> SenderCache | None:
        """The sender cache, if the trusted path may drive it: the reference's own class
        (no method of it overridden) sharing this front end's lock. Otherwise None, and the
        front end calls the sender's public methods, each validating and locking on its own
        (a subclass, or a sender swapped in after construction, gets what it overrides)."""
        sender = self._sender
        if type(sender) is SenderCache and sender._lock is self._lock:
            return sender
        return None

    def probe(self, request: Request) -> ProbedRequest:
        """Steps 1-2 of P0: probe, reject UUID-only misses, process the misses only.

        Validated once, here; a request whose every item hits is probed and recorded in one
        acquisition of the lock (the trusted path)."""
        if type(request) is Request and type(request.items) is tuple and len(
                request.items) == 1 and type(request.items[0]) is RequestItem and (
                request.resend is False):
            items: tuple[RequestItem, ...] = request.items  # one item, checked inline
            identities = [items[0].identity]
            if type(identities[0]) is not str or not identities[0]:
                check_identity(identities[0])
        else:
            items = _check_request(request)
            identities = _request_identities(items)
        sender = self._sender
        if request.resend and sender._bypasses_shadow(True):
            hits: frozenset[str] = frozenset()  # a V4 resend reads nothing from the shadow
        elif type(sender) is not SenderCache or sender._lock is not self._lock:
            hits = sender.probe(identities)  # not the trusted path: see ``_trusted``
        else:
            lock = self._lock
            lock.acquire()  # (acquire/release: half the cost of a with statement)
            try:
                hits = sender._lru.present(identities)
                if len(hits) == len(items):  # every item hit: recorded at once
                    request_id = next(self._ids)
                    probed = _new_tuple(ProbedRequest, (request_id, request, hits, {}, {}))
                    self._probed[request_id] = probed
                    return probed
            finally:
                lock.release()
        if len(hits) == len(items):  # every item hit: nothing to process
            processed: dict[str, ProcessedItem] = {}
            repeats: dict[int, ProcessedItem] = {}
        else:
            processed, repeats = _process_misses(self._processor, items, hits)
        with self._lock:
            request_id = next(self._ids)
            probed = _new_tuple(ProbedRequest, (request_id, request, hits, processed, repeats))
            self._probed[request_id] = probed
        return probed

    # The steps of ``probe``, for a front end that awaits between them (``AsyncFrontEnd``).

    def probe_shadow(self, request: Request) -> frozenset[str]:
        """Validate ``request``, probe the shadow (a V4 resend: no hits), reject UUID-only
        misses; changes nothing."""
        items = _check_request(request)
        hits = _shadow_hits(self._sender, [item.identity for item in items], request.resend)
        if len(hits) != len(items):
            _reject_uuid_only(items, hits)
        return hits

    def record_probed(
        self, request: Request, hits: frozenset[str], processed: dict[str, ProcessedItem],
        repeats: dict[int, ProcessedItem] | None = None,
    ) -> ProbedRequest:
        """Give the probed request its id and record it (the only change ``probe`` makes).

        ``hits`` and ``processed`` must split the request's identities: every identity is a
        hit or has its processed item, not both (a V4 resend: no hits, every item processed);
        ``repeats`` (``ProbedRequest.repeats``) must name exactly the items
        ``repeated_contents`` lists. Anything else is rejected, changing nothing.
        """
        hits, processed, repeats = _probed_parts(request, hits, processed, repeats)
        _reject_resend_hits(hits, self._sender, request)
        with self._lock:
            request_id = next(self._ids)
            probed = _new_tuple(ProbedRequest, (request_id, request, hits, processed, repeats))
            self._probed[request_id] = probed
        return probed

    @property
    def processor(self) -> Processor:
        return self._processor

    def update(self, probed: ProbedRequest) -> Message:
        """Step 3 of P0: update the shadow and build the message for the engine.

        ``probed`` must be what ``probe`` (or ``record_probed``) returned and not yet
        updated or abandoned; anything else is rejected, changing nothing. The request is
        recorded as outstanding under the same lock that takes it off the probed records
        (one acquisition for both; if the sender cache's update raises, nothing changed and
        the request is probed again).
        """
        if type(probed) is not ProbedRequest:
            check_exact("probed request", probed, ProbedRequest)
        request_id, request, hits, processed, _ = probed
        if type(request_id) is not int:
            check_request_id(request_id)
        sender: SenderCache | None = self._sender
        if type(sender) is not SenderCache or sender._lock is not self._lock:
            sender = None  # not the trusted path: see ``_trusted``
        lock = self._lock
        lock.acquire()  # (acquire/release: half the cost of a with statement)
        try:
            if self._probed.get(request_id) is not probed:
                raise UnknownRequestError(
                    f"got probed request {describe(request_id)}, expected one probed by "
                    "this front end and not yet updated"
                )
            # ``probed`` is this front end's own record: its fields are the ones it checked
            items = request.items
            # what the message will name: the request's identities (all of them hits, usually)
            sent = hits if len(hits) == len(items) else frozenset([i.identity for i in items])
            if sender is not None and not processed:  # the trusted hit path: one acquisition
                wire = sender._references_locked(items, self._processor)
                if wire is not None:
                    del self._probed[request_id]
                    self._outstanding[request_id] = sent
                    return _new_tuple(Message, (request_id, wire))
            del self._probed[request_id]
            self._outstanding[request_id] = sent
        finally:
            lock.release()
        outgoing = _outgoing(items, processed, probed.repeats)
        bypass = request.resend and self._sender._bypasses_shadow(True)  # V4: all processed
        try:
            if sender is not None:  # validated when probed: the sender's checks skipped
                wire = sender._update_validated(
                    outgoing, [each[0] for each in outgoing], self._processor, bypass)
            else:  # no resend argument unless bypassing: an overriding sender gets its call
                wire = self._sender.update(outgoing, self._processor, **_resend(bypass))
        except BaseException:
            with self._lock:  # nothing changed: the request is probed again
                self._outstanding.pop(request_id, None)
                self._probed[request_id] = probed
            raise
        return _new_tuple(Message, (request_id, wire))

    def prepare(self, request: Request) -> Message:
        """``probe`` then ``update``, with nothing in between; if the update raises, the
        request is abandoned (nothing recorded, nothing changed) and the error propagates."""
        probed = self.probe(request)
        try:
            return self.update(probed)
        except BaseException:
            self.abandon(probed.request_id)
            raise

    def handle_reply(self, reply: Reply) -> None:
        """Close an outstanding request; on a miss, invalidate exactly ``reply.missed``.

        A reply to an unknown request, or naming identities that request did not send, is
        rejected and changes nothing.
        """
        check_exact("reply", reply, Reply)
        check_request_id(reply.request_id)
        check_exact("missed identities", reply.missed, tuple)
        missed = check_identities(reply.missed)
        with self._lock:
            sent = self._outstanding.get(reply.request_id)
            if sent is None:
                raise UnknownRequestError(
                    f"got a reply to request {reply.request_id!r}, expected one of the "
                    f"{len(self._outstanding)} outstanding requests"
                )
            unknown = [identity for identity in missed if identity not in sent]
            if unknown:
                raise UnknownIdentityError(
                    f"got missed identities {short_list(unknown)} ({len(unknown)}) in the reply "
                    f"to request {reply.request_id}, expected identities that request sent"
                )
            del self._outstanding[reply.request_id]
            sender = self._trusted()
            if sender is not None:  # the shadow shares the lock: invalidated in this hold
                sender._invalidate_locked(missed)
                return
        self._sender.invalidate(missed)

    def withdraw(self, message: Message) -> int:
        """Close an outstanding request whose message P1 never received (the engine rejected
        it, or it could not be delivered), and drop again the shadow entries it recorded
        (``SenderCache.retract``); return how many were dropped. Unlike ``abandon`` (the
        protocol's D2: P0 keeps them), this keeps P0 from trusting items P1 never got.

        ``message`` must be the one ``update`` returned for an outstanding request; anything
        else is rejected and changes nothing.
        """
        sender = self._trusted()
        with self._lock:
            self._sent_items(message)
            if sender is not None:  # the shadow shares the lock: retracted in this hold
                dropped = sender._retract_locked(message.items)  # validates before changing
                del self._outstanding[message.request_id]
                return dropped
        dropped = self._sender.retract(message.items)  # validates before any change
        with self._lock:
            self._outstanding.pop(message.request_id, None)
        return dropped

    def clear(self) -> None:
        """Clear the shadow (always safe: removing keys from P0 only causes resends)."""
        self._sender.clear()

    def stats(self) -> CacheStats:
        return self._sender.stats()


def _outgoing(items: tuple[RequestItem, ...], processed: dict[str, ProcessedItem],
              repeats: Mapping[int, ProcessedItem]) -> tuple[Outgoing, ...]:
    """The request's items on their way to the sender cache, in request order."""
    if repeats:
        return tuple([_new_outgoing(Outgoing, (
            item.identity, repeats[index] if index in repeats else processed.get(item.identity),
            item.content)) for index, item in enumerate(items)])
    if processed:
        get = processed.get
        return tuple([_new_outgoing(Outgoing, (item.identity, get(item.identity), item.content))
                      for item in items])
    if len(items) == 1:  # the common request: one item, no comprehension frame
        return (_new_outgoing(Outgoing, (items[0].identity, None, items[0].content)),)
    return tuple([_new_outgoing(Outgoing, (item.identity, None, item.content))
                  for item in items])


def _request_identities(items: tuple[RequestItem, ...]) -> list[str]:
    """The identities of a checked request's items, each checked (one may come twice: the
    same image twice in one prompt)."""
    identities = [item.identity for item in items]
    for identity in identities:
        if type(identity) is not str or not identity:
            check_identity(identity)
    return identities


def _shadow_hits(sender: SenderCache, identities: list[str], resend: bool) -> frozenset[str]:
    """The identities the shadow holds; none for a V4 resend (checked, the shadow not read)."""
    if resend and sender._bypasses_shadow(True):
        check_identities(identities, distinct=False)  # what the probe checks
        return frozenset()
    return sender.probe(identities)


def _reject_resend_hits(hits: frozenset[str], sender: SenderCache, request: Request) -> None:
    """A V4 resend reads nothing from the shadow: hits claimed for it are bad input."""
    if hits and request.resend and sender._bypasses_shadow(True):
        raise BadInputValueError(
            f"got hits {short_list(sorted(hits))} for a resend, expected none (under "
            f"{sender.variant} a resend reads nothing from the shadow: every item processed)"
        )


def _resend(bypass: bool) -> dict[str, bool]:
    """``update``'s resend argument: passed only when bypassing (V4)."""
    return {"resend": True} if bypass else {}


def _check_request(request: Request) -> tuple[RequestItem, ...]:
    """``request`` a ``Request`` of a tuple of ``RequestItem`` (identities are checked where
    they are used: the sender cache's probe); returns its items."""
    if type(request) is not Request:
        check_exact("request", request, Request)
    check_request_fields(request.items, request.resend)  # again: fields can be forced
    return request.items


def _reject_uuid_only(items: tuple[RequestItem, ...], hits: frozenset[str]) -> None:
    """A UUID-only item that misses cannot be processed: ``MissingMediaError`` listing every
    such identity (nothing processed, nothing changed)."""
    uuid_only = [i.identity for i in items if i.identity not in hits and i.uuid_only]
    if uuid_only:
        raise MissingMediaError(uuid_only)


def _process_misses(
    processor: Processor, items: tuple[RequestItem, ...], hits: frozenset[str]
) -> tuple[dict[str, ProcessedItem], dict[int, ProcessedItem]]:
    """``probe``'s processing of the items that missed: the UUID-only misses rejected first
    (``_reject_uuid_only``); then ``ProbedRequest.processed`` (per missed identity, its first
    item's processing) and ``ProbedRequest.repeats`` (``repeated_contents``)."""
    _reject_uuid_only(items, hits)
    processed: dict[str, ProcessedItem] = {}
    for item in items:  # an identity named twice: its first item's content
        if item.identity not in hits and item.identity not in processed:
            processed[item.identity] = run_processor(processor, item.content)
    repeats: dict[int, ProcessedItem] = {}
    if len(processed) + len(hits) != len(items):  # one identity named twice
        repeats = {index: run_processor(processor, items[index].content)
                   for index in repeated_contents(items, hits)}
    return processed, repeats


def _probed_parts(
    request: Request, hits: frozenset[str], processed: dict[str, ProcessedItem],
    repeats: dict[int, ProcessedItem] | None,
) -> tuple[frozenset[str], dict[str, ProcessedItem], dict[int, ProcessedItem]]:
    """``record_probed``'s arguments checked (``_check_probed_parts``) and copied: P0's own,
    so a later change to the caller's changes nothing. Raises on bad input, changing nothing."""
    _check_request(request)
    if type(processed) is not dict:
        check_instance("processed items", processed, dict)
    processed = dict(processed)
    repeats = {} if repeats is None else repeats
    if type(repeats) is not dict:
        check_instance("repeated items", repeats, dict)
    repeats = dict(repeats)
    if type(hits) is not frozenset:
        check_instance("hits", hits, frozenset)
        hits = frozenset(hits)
    _check_probed_parts(request, hits, processed, repeats)
    return hits, processed, repeats


def _check_probed_parts(
    request: Request, hits: object, processed: object, repeats: dict[int, ProcessedItem]
) -> None:
    """``hits`` a frozenset and ``processed`` a dict of ``ProcessedItem`` that together name
    each identity of ``request`` exactly once; ``repeats`` a dict of ``ProcessedItem`` for
    exactly the items ``repeated_contents`` lists."""
    if type(hits) is not frozenset:
        check_instance("hits", hits, frozenset)
    if type(processed) is not dict:
        check_instance("processed items", processed, dict)
    for identity, item in processed.items():  # type: ignore[attr-defined]
        if type(item) is not ProcessedItem:
            check_exact(f"processed item of {short(identity)!r}", item, ProcessedItem)
    identities = frozenset(check_identities([item.identity for item in request.items],
                                            distinct=False))
    if len(hits) + len(processed) != len(identities) or any(  # type: ignore[arg-type]
            (identity in hits) == (identity in processed)  # type: ignore[operator]
            for identity in identities):
        raise BadInputValueError(
            "got hits and processed items that do not split the request's identities, "
            "expected each identity a hit or processed, not both"
        )
    for index, item in repeats.items():
        if type(item) is not ProcessedItem:
            check_exact(f"repeated item {describe(index)}", item, ProcessedItem)
    expected = repeated_contents(request.items, hits)  # type: ignore[arg-type]
    if sorted(repeats) != expected:
        raise BadInputValueError(
            f"got repeated items at {sorted(repeats)!r}, expected them at {expected!r} (the "
            "items whose identity an earlier item names with another content)"
        )
