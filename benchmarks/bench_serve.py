"""Benchmark: the whole ``serve()`` round trip of the reference against a pair built from
cachetools on both sides.

Not a test: timings depend on the machine. Both pairs serve the same requests in the same run,
in interleaved rounds, timed as this thread's CPU time (``time.thread_time_ns``, the garbage
collector paused), so the ratio compares like with like. Run from the repository root:

    python benchmarks/bench_serve.py [--requests N] [--rounds R]

The two pairs, each a front end (P0) and an engine (P1) in one process:
  reference   ``serve(front_end, engine, request)``: ``FrontEnd.prepare`` (input checks, the
              shadow's probe and update under its lock, tags), ``Engine.receive`` (the message's
              checks, resolving every item, the version stamps) and ``FrontEnd.handle_reply``
              (closing the request); V4, the default.
  cachetools  the sender vLLM runs (its LruKeyReplicatedSenderCache over a cachetools LRU of
              metadata: ``is_cached_item``, ``touch_sender_cache_item``,
              ``get_and_update_item``) and, on P1, a cachetools LRU of the tensors sized by
              walking them (vLLM's receiver: a payload is stored, a reference looked up); no
              lock, no input checks, no tags, no reply.

Workloads (per request of K items, K = 1 and 8; 64-hex identities, items of 1-8 small float32
tensors, caches large enough for every item):
  hit   every item of the request is held on both sides (the steady state the pairing is for:
        P0 sends references only);
  miss  every item is new to both sides (its processing is handed over ready: only the
        caches' work is timed): P0 records it and sends its payload, P1 stores it.

Output: per workload and K, the median ns per request of each pair over the rounds and the
reference / cachetools ratio.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_reference import CachetoolsSender, VllmLruCache, make_items, walk

from reference import Engine, FrontEnd, ProcessedItem, Request, RequestItem, serve

BUDGET = 1 << 40
"""Bytes: every item fits, nothing is evicted (the timed work is the pairing's own)."""


class CachetoolsPair:
    """vLLM's sender over cachetools (P0) and a cachetools LRU of tensors (P1)."""

    def __init__(self, budget: int) -> None:
        self.sender = CachetoolsSender(budget)
        self.receiver = VllmLruCache(budget, getsizeof=lambda item: walk(item.payload))

    def serve(self, items: list[tuple[str, ProcessedItem]]) -> list[Any]:
        sender, receiver = self.sender, self.receiver
        for identity, _ in items:
            if sender.is_cached_item(identity):
                sender.touch_sender_cache_item(identity)
        sent = [(identity, sender.get_and_update_item(
            None if sender.is_cached_item(identity) else item, identity))
            for identity, item in items]
        inputs = []
        for identity, value in sent:
            if isinstance(value, ProcessedItem):  # a payload: stored, served
                receiver[identity] = value
                inputs.append(value.payload)
            else:  # a reference: looked up (a miss would be vLLM's assertion)
                held = receiver.get(identity)
                assert held is not None, f"Expected a cached item for {identity=}"
                inputs.append(held.payload)
        return inputs


def timed(run: Callable[[], int]) -> float:
    """This thread's CPU ns per request of one call of ``run`` (which returns its count)."""
    gc.collect()
    gc.disable()
    start = time.thread_time_ns()
    count = run()
    elapsed = time.thread_time_ns() - start
    gc.enable()
    return elapsed / count


def workload(kind: str, size: int, requests: int, rounds: int, rng: random.Random
             ) -> tuple[Callable[[], int], Callable[[], int]]:
    """(the reference's round, the cachetools pair's round) for one workload: the same
    requests, in the same order, for both pairs."""
    fresh = rounds if kind == "miss" else 1  # a miss round needs identities never served
    pool = make_items(size * requests * fresh, rng)
    processed = dict(pool)
    front_end = FrontEnd(BUDGET, lambda content: processed[str(content)])
    engine = Engine(BUDGET)
    pair = CachetoolsPair(BUDGET)
    batches = [pool[i:i + size] for i in range(0, len(pool), size)]
    ours = [Request(tuple(RequestItem(identity, identity) for identity, _ in batch))
            for batch in batches]
    if kind == "hit":
        for request, batch in zip(ours, batches, strict=True):  # warm both pairs
            serve(front_end, engine, request)
            pair.serve(batch)
    served = {"reference": 0, "cachetools": 0}

    def window(name: str) -> slice:
        low = served[name] * requests % len(batches)
        served[name] += 1
        return slice(low, low + requests)

    def reference_round() -> int:
        chosen = ours[window("reference")]
        for request in chosen:
            serve(front_end, engine, request)
        return len(chosen)

    def cachetools_round() -> int:
        chosen = batches[window("cachetools")]
        for batch in chosen:
            pair.serve(batch)
        return len(chosen)

    return reference_round, cachetools_round


def measure(kind: str, size: int, requests: int, rounds: int) -> tuple[float, float]:
    """Medians of interleaved rounds: (reference ns/request, cachetools ns/request)."""
    ours_round, theirs_round = workload(kind, size, requests, rounds, random.Random(size))
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(timed(ours_round))
        theirs.append(timed(theirs_round))
    return statistics.median(ours), statistics.median(theirs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per round")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds")
    args = parser.parse_args(argv)
    if args.requests < 1 or args.rounds < 1:
        parser.error("--requests and --rounds must be >= 1")
    print(f"serve() round trip, medians of {args.rounds} interleaved rounds of "
          f"{args.requests} requests (thread CPU ns per request)")
    print("| workload | items/request | reference | cachetools pair | reference / cachetools |")
    print("|---|---:|---:|---:|---:|")
    for kind in ("hit", "miss"):
        for size in (1, 8):
            ours, theirs = measure(kind, size, args.requests, args.rounds)
            print(f"| {kind} | {size} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:.1f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
