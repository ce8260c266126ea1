"""Benchmark: per-item cost of the reference caches' hit and miss paths, against baselines.

Not a test: timings depend on the machine. Everything is measured in one run, so the ratios
compare like with like. Run from the repository root:

    python benchmarks/bench_reference.py [--items N] [--repeats R]

Items are realistic in shape: 1-8 small float32 tensors each, under 64-hex-digit identities.

Baselines:
  floor      a bare OrderedDict LRU (a class with probe/touch/get/put and a byte counter; the
             size is handed to put, never computed);
  cachetools cachetools.LRUCache with a getsizeof that walks the item's tensors on every insert
             (the way the real system sizes items), touch = move_to_end in its private order.

Paths (per item, steady state):
  get   ``get`` of a present key (made most recent): the lookup itself.
  hit   probe (``in``) + touch + get of a present key: what each side does for an item that
        hit. Rows: the LRU itself (ByteLru), the sender cache's public per-item calls
        (SenderCache: lock, input checks, the wire item), and a whole V3 request (front end
        prepare + engine receive of 8 hits, both sides, per item).
  miss  insert of an absent key into a full cache (one eviction per insert), sizing included
        where the structure sizes (cachetools walks; ByteLru is given the size computed once
        when the item was processed; "ByteLru + sizing" adds that one walk).

Memory per shadow entry: tracemalloc's growth while inserting N entries (identities and
placeholders exist beforehand: they are the request's; the shadow only keeps them alive).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
import tracemalloc
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import torch
from cachetools import LRUCache

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference import (
    V2,
    V3,
    ByteLru,
    Engine,
    FrontEnd,
    Placeholders,
    ProcessedItem,
    Request,
    RequestItem,
    SenderCache,
    TensorTree,
    tree_nbytes,
)


class OrderedDictLru:
    """The floor: the least code that is still a byte-budget LRU."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self.order: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()

    def __contains__(self, key: Hashable) -> bool:
        return key in self.order

    def touch(self, key: Hashable) -> None:
        if key in self.order:
            self.order.move_to_end(key)

    def get(self, key: Hashable) -> Any:
        entry = self.order.get(key)
        if entry is None:
            return None
        self.order.move_to_end(key)
        return entry[0]

    def put(self, key: Hashable, value: Any, size: int) -> None:
        while self.used + size > self.budget:
            self.used -= self.order.popitem(last=False)[1][1]
        self.order[key] = (value, size)
        self.used += size


class WalkingLruCache(LRUCache[Hashable, ProcessedItem]):
    """cachetools' LRU sized by walking the item's tensors on every insert."""

    def __init__(self, budget: int) -> None:
        super().__init__(budget, getsizeof=lambda item: walk(item.payload))

    def touch(self, key: Hashable) -> None:
        order = self._LRUCache__order  # type: ignore[attr-defined]
        if key in order:
            order.move_to_end(key)


def walk(tree: TensorTree) -> int:
    total = 0
    for value in tree.values():
        total += value.nbytes if isinstance(value, torch.Tensor) else walk(value)
    return total


def make_items(count: int, rng: random.Random) -> list[tuple[str, ProcessedItem]]:
    items = []
    for index in range(count):
        payload = {f"t{i}": torch.zeros(rng.randint(4, 64)) for i in range(rng.randint(1, 8))}
        identity = f"{rng.getrandbits(256):064x}"
        items.append((identity, ProcessedItem(payload, Placeholders(index, rng.randint(1, 600)))))
    return items


def median_ns_per_item(run: Callable[[], int], repeats: int) -> float:
    """Median over ``repeats`` runs of (elapsed ns / items processed by the run)."""
    samples = []
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        start = time.perf_counter_ns()
        done = run()
        elapsed = time.perf_counter_ns() - start
        gc.enable()
        samples.append(elapsed / done)
    return statistics.median(samples)


def filled(items: list[tuple[str, ProcessedItem]]) -> tuple[Any, ...]:
    """The three structures and a sender cache, each holding every item."""
    budget = 1 << 40
    floor, tools = OrderedDictLru(budget), WalkingLruCache(budget)
    ours: ByteLru[str, ProcessedItem] = ByteLru(budget)
    sender = SenderCache(budget)
    for identity, item in items:
        floor.put(identity, item, item.nbytes)
        tools[identity] = item
        ours.put(identity, item, item.nbytes)
        sender.get_and_update(identity, item)
    return floor, tools, ours, sender


def get_paths(items: list[tuple[str, ProcessedItem]]) -> dict[str, Callable[[], int]]:
    floor, tools, ours, _ = filled(items)
    keys = [identity for identity, _ in items]

    def gets(cache: Any) -> Callable[[], int]:
        def run() -> int:
            get = cache.get
            for key in keys:
                get(key)
            return len(keys)
        return run

    return {"floor": gets(floor), "cachetools": gets(tools), "ByteLru": gets(ours)}


def hit_paths(items: list[tuple[str, ProcessedItem]]) -> dict[str, Callable[[], int]]:
    floor, tools, ours, sender = filled(items)
    keys = [identity for identity, _ in items]

    def floor_hits() -> int:
        for key in keys:
            if key in floor:
                floor.touch(key)
                floor.get(key)
        return len(keys)

    def tools_hits() -> int:
        for key in keys:
            if key in tools:
                tools.touch(key)
                tools.get(key)
        return len(keys)

    def ours_hits() -> int:
        for key in keys:
            if key in ours:
                ours.touch(key)
                ours.get(key)
        return len(keys)

    def sender_hits() -> int:
        for key in keys:
            if key in sender:
                sender.touch(key)
                sender.get_and_update(key, None)
        return len(keys)

    return {"floor": floor_hits, "cachetools": tools_hits, "ByteLru": ours_hits,
            "SenderCache (per item)": sender_hits, "V3 request, both sides": request_hits(items)}


def request_hits(items: list[tuple[str, ProcessedItem]]) -> Callable[[], int]:
    by_content = dict(enumerate(item for _, item in items))
    front_end = FrontEnd(1 << 40, lambda content: by_content[content])  # type: ignore[index]
    engine = Engine(1 << 40)
    requests = [
        Request(tuple(RequestItem(identity, start + i)
                      for i, (identity, _) in enumerate(items[start:start + 8])))
        for start in range(0, len(items) - 7, 8)
    ]
    for request in requests:  # warm both caches: every later item is a hit
        engine.receive(front_end.prepare(request))

    def run() -> int:
        for request in requests:
            engine.receive(front_end.prepare(request))
        return 8 * len(requests)

    return run


def miss_paths(items: list[tuple[str, ProcessedItem]]) -> dict[str, Callable[[], int]]:
    """Every insert is of an absent key into a full cache (budget: about half the items)."""
    budget = sum(item.nbytes for _, item in items) // 2
    floor, tools = OrderedDictLru(budget), WalkingLruCache(budget)
    ours: ByteLru[str, ProcessedItem] = ByteLru(budget)

    def floor_misses() -> int:
        for identity, item in items:
            floor.put(identity, item, item.nbytes)
        return len(items)

    def tools_misses() -> int:
        for identity, item in items:
            tools[identity] = item
        return len(items)

    def ours_misses() -> int:
        for identity, item in items:
            ours.put(identity, item, item.nbytes)
        return len(items)

    def ours_sizing_misses() -> int:
        for identity, item in items:
            ours.put(identity, item, tree_nbytes(item.payload))
        return len(items)

    return {"floor": floor_misses, "cachetools": tools_misses, "ByteLru": ours_misses,
            "ByteLru + sizing": ours_sizing_misses}


def bytes_per_entry(build: Callable[[], object], count: int) -> float:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = build()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    return (after - before) / count


def memory_rows(items: list[tuple[str, ProcessedItem]]) -> list[tuple[str, float]]:
    budget = 1 << 40

    def shadow(variant: Any) -> Callable[[], object]:
        def build() -> object:
            cache = SenderCache(budget, variant=variant)
            for identity, item in items:
                cache.get_and_update(identity, item)
            return cache
        return build

    def floor() -> object:
        cache = OrderedDictLru(budget)
        for identity, item in items:
            cache.put(identity, item.placeholders, item.nbytes)
        return cache

    placeholders = sys.getsizeof(items[0][1].placeholders)
    return [
        ("floor: OrderedDict key -> (placeholders, size)", bytes_per_entry(floor, len(items))),
        ("SenderCache V2 (untagged)", bytes_per_entry(shadow(V2), len(items))),
        ("SenderCache V3 (tagged)", bytes_per_entry(shadow(V3), len(items))),
        ("kept alive, not counted: one Placeholders object", float(placeholders)),
    ]


def table(title: str, rows: dict[str, float]) -> list[str]:
    floor, tools = rows["floor"], rows["cachetools"]
    lines = [f"| {title} | ns/item (median) | x floor | cachetools / this |",
             "|---|---:|---:|---:|"]
    for name, ns in rows.items():
        lines.append(f"| {name} | {ns:,.0f} | {ns / floor:.2f} | {tools / ns:.2f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=21)
    args = parser.parse_args()
    items = make_items(args.items, random.Random(0))
    gets = {name: median_ns_per_item(run, args.repeats) for name, run in get_paths(items).items()}
    hits = {name: median_ns_per_item(run, args.repeats) for name, run in hit_paths(items).items()}
    misses = {name: median_ns_per_item(run, args.repeats)
              for name, run in miss_paths(items).items()}
    print(f"command: python benchmarks/bench_reference.py --items {args.items} "
          f"--repeats {args.repeats}")
    print(f"python {sys.version.split()[0]}, torch {torch.__version__}, "
          f"{args.items} items of 1-8 float32 tensors, median of {args.repeats} runs\n")
    print("\n".join(table("hit path: get of a present key", gets)))
    print()
    print("\n".join(table("hit path: probe + touch + get", hits)))
    print()
    print("\n".join(table("miss path: insert with one eviction", misses)))
    print()
    print("| memory per shadow entry | bytes |\n|---|---:|")
    for name, size in memory_rows(items):
        print(f"| {name} | {size:,.0f} |")


if __name__ == "__main__":
    main()
