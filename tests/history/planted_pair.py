"""Pairs written without the harness's hooks, each with one planted concurrency bug the
gate must catch at its defaults (`conform --threads 4` / `--tasks 4` at `--profile ci`):

- `hookless_pair.factory_unlocked_*`: one method's lock removed (`hookless_pair.TARGETS`);
- `factory_check_then_act`: the sender probes under its lock and updates under a second
  acquisition, acting on what it probed (a probed hit gone since is P0's assertion);
- `async_factory` / `async_factory_unlocked_await`: an asyncio front end (`serve_async`)
  whose probe and update run with no await between them, and the same with an await (the
  processor's, as a server awaits it in an executor) between its probe and its update, and
  no lock across it;
- `factory_dtype_table`: both sides size a payload from a dtype table (`ITEMSIZE`) wrong
  for int64 (4 bytes an element): right for the harness's own float32, int16 and uint8.

Like `hookless_pair.py`: an `OrderedDict` shadow and a `cachetools.LRUCache` receiver,
bounded in bytes, the payload wins, no tags (V2), plain `threading.Lock`s, no points, no
eviction reports, no `attach`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, cast

import cachetools
import torch

from model_checks.conform import adapter as api
from tests.conform.ordered_pair import Probed, probe_items
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
            missed = delivered.identities if isinstance(delivered, api.Missed) else ()
            self.handle_reply(message.request_id, missed)
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
            missed = delivered.identities if isinstance(delivered, api.Missed) else ()
            self.handle_reply(message.request_id, missed)
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
