"""The reference front end's update one item at a time (`adapter.ItemUpdates`), for D6.

`reference.FrontEnd.update` takes a whole request under the sender cache's lock, so other
requests cannot interleave between its items. A front end that updates outside a lock
(vLLM's, item by item with `get_and_update_item`) can: that is the spec's `P0UpdateItem`.
`ItemUpdater` drives the reference's own per-item API the way such a front end does: the
first item step touches every identity of the request (`SenderCache.touch`), each step then
resolves one item in the variant's order (`reference.variants.ordered`, decided by presence
when the update starts, as `SenderCache.update` decides it; a V4 resend: request order, each
item's update marked `resend=True`, so it is recorded afresh) through the sender cache's own
update of that one item (`SenderCache.update`: a hit is a reference, a miss records its
metadata, V3's late miss is reprocessed by the cache's own path; that update's touch of the
one item changes nothing: a hit's lookup makes it the most recent anyway, and an absent item
is not touched).

Glue, stated: the request leaves the front end's records when its item update starts
(`FrontEnd.abandon`), since `FrontEnd.update` is what records a request as outstanding; its
reply is then applied by invalidating the identities it lists (`SenderCache.invalidate`),
which is what `FrontEnd.handle_reply` does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from model_checks.conform import adapter as api
from reference import (
    FrontEnd,
    Message,
    MissingMediaError,
    Outgoing,
    ProbedRequest,
    WireItem,
)
from reference.frontend import processed_item
from reference.variants import ordered


@dataclass
class _Update:
    """One request's update in progress: its resolution order and the wire items so far."""

    probed: ProbedRequest
    order: list[int]
    resend: bool = False  # a V4 resend: every item recorded afresh, in request order
    wire: dict[int, WireItem] = field(default_factory=dict)


@dataclass
class ItemUpdater:
    """Item updates on the current front end (`front_end()`: it changes on a restart);
    `sent` holds the request ids whose message it built (their replies are its to apply)."""

    front_end: Callable[[], FrontEnd]
    updating: dict[int, _Update] = field(default_factory=dict)
    sent: set[int] = field(default_factory=set)

    def update_item(self, probed: ProbedRequest
                    ) -> Message | api.ClientRejected | BaseException | None:
        """The next item of `probed`'s update: None while items remain, the message after
        the last; a rejection, or the error an item raised (the caller reports it)."""
        update = self.updating.get(probed.request_id)
        if update is None:
            started = self._start(probed)
            if isinstance(started, api.ClientRejected):
                return started
            update = started
        index = update.order[len(update.wire)]
        item = probed.request.items[index]
        front_end = self.front_end()
        outgoing = Outgoing(item.identity, processed_item(probed, index), item.content)
        try:
            if update.resend:
                wire = front_end.sender.update((outgoing,), front_end.processor, resend=True)[0]
            else:
                wire = front_end.sender.update((outgoing,), front_end.processor)[0]
        except Exception as error:
            del self.updating[probed.request_id]
            if isinstance(error, MissingMediaError):
                return api.ClientRejected(error.identities)
            return error
        update.wire[index] = wire
        if len(update.wire) < len(update.order):
            return None
        del self.updating[probed.request_id]
        self.sent.add(probed.request_id)
        return Message(probed.request_id, tuple(update.wire[i] for i in range(len(update.order))))

    def _start(self, probed: ProbedRequest) -> _Update | api.ClientRejected:
        """The first item step: V3's unprocessable late misses rejected before any change,
        else touch every identity and fix the order."""
        front_end = self.front_end()
        sender = front_end.sender
        items = probed.request.items
        front_end.abandon(probed.request_id)  # off the front end's records: see the module
        rejected = self._unprocessable(probed)
        if rejected is not None:
            return rejected
        for item in items:
            sender.touch(item.identity)
        if probed.request.resend and sender._bypasses_shadow(True):
            # V4: a resend reads nothing from the shadow; its payloads go in request order
            update = _Update(probed, list(range(len(items))), resend=True)
            self.updating[probed.request_id] = update
            return update
        present = [item.identity in sender for item in items]
        update = _Update(probed, ordered(sender.variant, present))
        self.updating[probed.request_id] = update
        return update

    def _unprocessable(self, probed: ProbedRequest) -> api.ClientRejected | None:
        """V3: a probed hit the shadow lost, sent UUID-only, cannot be reprocessed; the
        sender cache's own update of the request's lost hits decides it, before any change
        (`SenderCache.update` rejects them all at once). None: nothing of the kind."""
        front_end = self.front_end()
        sender = front_end.sender
        lost = [i for i in probed.request.items
                if i.identity in probed.hits and i.identity not in sender]
        if not sender.variant.late_miss_reprocess or not any(i.uuid_only for i in lost):
            return None
        try:
            sender.update(tuple(Outgoing(i.identity, None, i.content) for i in lost),
                          front_end.processor)
        except MissingMediaError as error:
            return api.ClientRejected(error.identities)
        return api.ClientRejected(())  # the cache accepted them: what it did is compared

    def reply(self, request_id: int, missed: tuple[str, ...]) -> bool:
        """Apply the reply to a request this updater sent (True), else leave it (False)."""
        if request_id not in self.sent:
            return False
        self.sent.discard(request_id)
        self.front_end().sender.invalidate(missed)
        return True

    def abandon(self, request_id: int) -> bool:
        """Forget a request this updater sent (True), else leave it (False)."""
        if request_id not in self.sent:
            return False
        self.sent.discard(request_id)
        return True

    def restart(self) -> None:
        self.updating.clear()
        self.sent.clear()
