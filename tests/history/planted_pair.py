"""Pairs written without the harness's hooks, each with one planted concurrency bug the
gate must catch at its defaults (`conform --threads 4` / `--async-clients 4` at `--profile ci`):

- `hookless_pair.factory_unlocked_*`: one method's lock removed (`hookless_pair.TARGETS`);
- `factory_check_then_act`: the sender probes under its lock and updates under a second
  acquisition, acting on what it probed (a probed hit gone since is P0's assertion);
- `async_factory` / `async_factory_unlocked_await`: an asyncio front end (`serve_async`)
  whose probe and update run with no await between them, and the same with an await (the
  processor's, as a server awaits it in an executor) between its probe and its update, and
  no lock across it;
- `factory_dtype_table`: both sides size a payload from a dtype table (`ITEMSIZE`) wrong
  for int64 (4 bytes an element): right for the harness's own float32, int16 and uint8;
- `factory_refusal_keeps` / `factory_refusal_undoes` (clean) and
  `factory_refusal_undoes_hits` (planted): an engine that refuses a request
  (`EngineRefused`, declared as `refuse`: the adapter's `Refuses`), and a sender whose
  serve lets the refusal through keeping what the attempt recorded, undoing it (dropping
  each entry the attempt recorded and still holds), or, the planted bug, dropping every
  identity of the refused request: its hits too, which an earlier accepted request
  recorded and the engine holds (a choice the spec does not allow).

- `factory_split_receive`: an engine whose receive resolves the message under one
  acquisition of its lock and refreshes and stores under a second, putting back each
  reference it resolved from the cache it read in the first: a restart between the two (the
  engine restarted while the request is in it) leaves the restarted engine holding entries
  it never received, on which later references hit (only a restart in flight exposes it:
  the two sections keep every access under the lock, and a clear between them empties the
  same cache the second refills, as a receive after the clear would).

Like `hookless_pair.py`: an `OrderedDict` shadow and a `cachetools.LRUCache` receiver,
bounded in bytes, the payload wins, no tags (V2), plain `threading.Lock`s, no points, no
eviction reports, no `attach`.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import Any, cast

import cachetools
import torch

from model_checks.conform import adapter as api
from tests.conform.ordered_pair import ByteLru, Probed, delivery, nbytes, probe_items
from tests.conform.replies import missed_of
from tests.history.hookless_pair import HooklessPair, Receiver, Sender


class CheckThenActSender(Sender):
    """P0 whose serve probes under the lock, releases it, and updates under a second
    acquisition: another request may change the shadow in between."""

    def serve(self, engine: Any, items: tuple[api.ItemIn, ...]
              ) -> api.Served | api.Missed | api.ClientRejected | api.Fault:
        probed = self.probe(items)
        if isinstance(probed, api.ClientRejected):
            return probed
        message = self.update(probed)
        if not isinstance(message, api.WireMessage):
            return message
        delivered: api.Delivered = engine.receive(message)
        if not isinstance(delivered, api.Fault):
            self.handle_reply(message.request_id, missed_of(delivered))
        return delivered


class AsyncSender(Sender):
    """P0 for an asyncio server: `serve_async` awaits before its probe and after the
    engine, never between probe and update (one task at a time: no lock needed), unless
    `await_between` (the planted bug: the processor awaited between them)."""

    await_between: bool = False

    async def serve_async(self, engine: Any, items: tuple[api.ItemIn, ...]
                          ) -> api.Served | api.Missed | api.ClientRejected | api.Fault:
        await asyncio.sleep(0)
        probed = probe_items(self.cache, self.setup.process, items)
        if isinstance(probed, api.ClientRejected):
            return probed
        if self.await_between:
            await asyncio.sleep(0)  # the processor, awaited in an executor
        message = self._update(probed)
        if not isinstance(message, api.WireMessage):
            return message
        delivered: api.Delivered = engine.receive(message)
        await asyncio.sleep(0)
        if not isinstance(delivered, api.Fault):
            self.handle_reply(message.request_id, missed_of(delivered))
        return delivered


class AwaitingSender(AsyncSender):
    await_between = True


ITEMSIZE = {torch.float64: 8, torch.complex64: 8, torch.int64: 4, torch.float32: 4,
            torch.int32: 4, torch.bfloat16: 2, torch.float16: 2, torch.int16: 2,
            torch.uint8: 1, torch.int8: 1, torch.bool: 1}
"""Bytes per element by dtype, as a server's size table has it: int64 wrong (4, not 8)."""


def table_nbytes(payload: api.Payload) -> int:
    return sum(t.numel() * ITEMSIZE[t.dtype] for t in payload.values())


class TableSender(Sender):
    """P0 recording each miss's size from `ITEMSIZE`."""

    def _update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        items, processed = cast(Probed, probed)
        for item in items:
            self.cache.touch(item.identity)
        wire = []
        for n, item in enumerate(items):  # processed by position (ordered_pair.probe_items)
            hit = self.cache.get(item.identity)
            if hit is not None:
                wire.append(api.WireItem(item.identity, None, hit, None))  # type: ignore[arg-type]
                continue
            if n not in processed:
                return api.Fault("p0-assert", f"{item.identity} was probed and is gone")
            payload, placeholders = processed[n]
            self.cache.put(item.identity, table_nbytes(payload), placeholders)
            wire.append(api.WireItem(item.identity, payload, placeholders, None))
        return api.WireMessage(self.epoch << 32 | next(self.ids), tuple(wire))


class TableReceiver(Receiver):
    """P1 over an `LRUCache` sized by `ITEMSIZE`."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.cache = cachetools.LRUCache(maxsize=self.setup.budget, getsizeof=table_nbytes)

    def restart(self) -> None:
        with self.lock:
            self.cache = cachetools.LRUCache(maxsize=self.setup.budget,
                                             getsizeof=table_nbytes)

    def receiver(self) -> tuple[api.ReceiverEntry, ...]:
        with self.lock:
            return tuple(api.ReceiverEntry(k, table_nbytes(v), v, None)
                         for k, v in self.cache.items())


@dataclass
class PlantedPair(HooklessPair):
    """The hookless pair with another front end (`sender`)."""

    sender: type[Sender] = Sender
    receiver: type[Receiver] = Receiver

    def front_end(self, setup: api.Setup, index: int) -> Sender:
        return self.sender(setup, index, self.unlocked)

    def engine(self, setup: api.Setup) -> Receiver:
        return self.receiver(setup, self.unlocked)


def factory_check_then_act() -> PlantedPair:
    return PlantedPair("check-then-act-pair", sender=CheckThenActSender)


def async_factory() -> PlantedPair:
    return PlantedPair("async-pair", sender=AsyncSender)


def async_factory_unlocked_await() -> PlantedPair:
    return PlantedPair("async-pair-unlocked-await", sender=AwaitingSender)


def factory_dtype_table() -> PlantedPair:
    return PlantedPair("dtype-table-pair", sender=TableSender, receiver=TableReceiver)


class EngineRefused(RuntimeError):
    """The engine's refusal of a request before it reads any item (its queue is full)."""


class RefusingReceiver(Receiver):
    """P1 that declares how it refuses a request (the adapter's `Refuses`), over a byte LRU
    that refreshes every item of a message before it stores or reads any, in request order
    (as the spec's receiver does: lockstep compares its order too)."""

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.cache = ByteLru(self.setup.budget)  # type: ignore[assignment]

    def refuse(self, message: api.WireMessage) -> Exception:
        return EngineRefused(f"request {message.request_id} refused: the queue is full")

    def receive(self, message: api.WireMessage) -> api.Delivered:
        cache = cast(ByteLru, self.cache)
        with self._guard("receive"):
            for item in message.items:
                cache.touch(item.identity)
            resolved = []
            for item in message.items:
                tensors = item.payload
                if tensors is not None:
                    cache.put(item.identity, nbytes(tensors), tensors)
                else:
                    tensors = cast("api.Payload | None", cache.get(item.identity))
                resolved.append((item, tensors))
            return delivery(resolved)

    def restart(self) -> None:
        with self.lock:
            self.cache = ByteLru(self.setup.budget)  # type: ignore[assignment]

    def receiver(self) -> tuple[api.ReceiverEntry, ...]:
        with self.lock:
            cache = cast(ByteLru, self.cache)
            return tuple(api.ReceiverEntry(k, size, cast(api.Payload, value), None)
                         for k, (size, value) in cache.entries.items())


class UndoingSender(Sender):
    """P0 whose serve undoes a refused attempt under its lock, then lets the refusal through:
    it drops each entry the attempt recorded and still holds (`_undone`). Otherwise
    `Sender.serve`, the engine's receive wrapped (`_Undoing`)."""

    def serve(self, engine: Any, items: tuple[api.ItemIn, ...]
              ) -> api.Served | api.Missed | api.ClientRejected | api.Fault:
        return super().serve(_Undoing(engine, self), items)

    def _undone(self, message: api.WireMessage) -> list[str]:
        """The entries to drop: each the attempt recorded (sent with its payload) whose
        placeholders the shadow still holds."""
        return [item.identity for item in message.items if item.payload is not None
                and item.identity in self.cache
                and self.cache.entries[item.identity][1] == item.placeholders]


@dataclass
class _Undoing:
    """The engine as `UndoingSender.serve` calls it: a refused attempt's entries are dropped
    from the sender's shadow, under its lock, before the refusal goes on."""

    engine: Any
    sender: UndoingSender

    def receive(self, message: api.WireMessage) -> api.Delivered:
        try:
            delivered: api.Delivered = self.engine.receive(message)
        except EngineRefused:
            with self.sender.lock:
                for identity in self.sender._undone(message):
                    self.sender.cache.pop(identity)
            raise
        return delivered


class UndoingHitsSender(UndoingSender):
    """The planted bug: the undo drops every identity of the refused request, its hits too
    (entries an earlier accepted request recorded, which the engine holds)."""

    def _undone(self, message: api.WireMessage) -> list[str]:
        return [item.identity for item in message.items]


def factory_refusal_keeps() -> PlantedPair:
    return PlantedPair("refusal-keeps-pair", receiver=RefusingReceiver)


def factory_refusal_undoes() -> PlantedPair:
    return PlantedPair("refusal-undoes-pair", sender=UndoingSender, receiver=RefusingReceiver)


def factory_refusal_undoes_hits() -> PlantedPair:
    return PlantedPair("refusal-undoes-hits-pair", sender=UndoingHitsSender,
                       receiver=RefusingReceiver)


class SplitReceiveReceiver(Receiver):
    """P1 whose receive resolves under one acquisition of its lock and refreshes and stores
    under a second; the planted bug: a resolved reference is refreshed by putting it back
    (`self.cache[identity] = tensors`), into the cache as it is at the second acquisition,
    which a restart in between replaced."""

    def receive(self, message: api.WireMessage) -> api.Delivered:
        with self.lock:
            resolved = [(item, item.payload if item.payload is not None
                         else self.cache.get(item.identity)) for item in message.items]
        with self.lock:
            for item, tensors in resolved:  # every item refreshed first, as `Receiver`'s
                if item.payload is None and tensors is not None:
                    self.cache[item.identity] = tensors
                elif item.identity in self.cache:
                    self.cache[item.identity]
            for item in message.items:
                if item.payload is not None:
                    self.cache.pop(item.identity, None)
                    if nbytes(item.payload) <= self.cache.maxsize:
                        self.cache[item.identity] = item.payload
        return delivery(resolved)


def factory_split_receive() -> PlantedPair:
    return PlantedPair("split-receive-pair", receiver=SplitReceiveReceiver)
