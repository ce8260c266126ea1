"""Memory the budget bounds, measured as the process's resident memory (RSS).

Each case runs in a fresh interpreter (``python -c``), so that one case's freed memory is not
reused by the next: it warms up (torch, a few requests), reads its RSS, pushes many more
items than fit through a front end and an engine of budget ``BUDGET``, and reads its RSS
again. The bound the package states (``reference.lru``: each side keeps alive at most its
budget in tensor bytes and at most as much again in bookkeeping, once the budget is at least
``MIN_NODES * NODE_BYTES``) is ``4 * BUDGET`` for the pair; the test allows that plus
``SLACK`` for the allocator and the interpreter (generous: no timing, no tight fit).

Before the bookkeeping was bounded, 30,000 zero-byte items (or 1-byte ones) grew the RSS by
about 50 MB through a 1 MiB budget; before an identity's own characters were charged (in
nodes, ``reference.lru.identity_nodes``), 5,000 zero-byte items under 65,536-character
identities grew it by about 32 MiB per side.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

BUDGET = 1 << 20
SLACK = 12 << 20
HANG_SECONDS = 1800

SCRIPT = """
import gc, sys, torch
from reference import Engine, FrontEnd, Placeholders, ProcessedItem, Request, RequestItem, serve

def rss():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096

numel, count, budget = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
pad = "-" * max(int(sys.argv[4]) - 64, 0)  # identities of sys.argv[4] characters

def processor(content):
    return ProcessedItem({"x": torch.zeros(numel, dtype=torch.uint8)}, Placeholders(0, 1))

front_end, engine = FrontEnd(budget, processor), Engine(budget)
for index in range(200):  # warm up: torch's allocator, the interpreter's arenas
    serve(front_end, engine, Request((RequestItem(f"warm-{index}", index),)))
front_end.clear(); engine.clear(); gc.collect()
before = rss()
for index in range(count):
    serve(front_end, engine, Request((RequestItem(f"{index:064x}{pad}", index),)))
gc.collect()
print(rss() - before, engine.stats().entries, front_end.stats().entries)
"""


@pytest.mark.parametrize(
    ("numel", "count", "identity_chars"),
    [(0, 30_000, 64), (1, 30_000, 64), (16 << 10, 2_000, 64), (0, 5_000, 64 << 10),
     (1 << 10, 5_000, 64 << 10)],
    ids=["zero-byte", "one-byte", "16-KiB", "zero-byte-64-KiB-identities",
         "1-KiB-64-KiB-identities"],
)
def test_rss_growth_stays_within_the_stated_factor_of_the_budget(
        numel: int, count: int, identity_chars: int) -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(numel), str(count), str(BUDGET), str(identity_chars)],
        capture_output=True, text=True, timeout=HANG_SECONDS, check=True,
    )
    growth, receiver_entries, sender_entries = map(int, result.stdout.split())
    assert receiver_entries == sender_entries  # the bound keeps both sides mirrored
    assert growth <= 4 * BUDGET + SLACK, (
        f"RSS grew by {growth / 2**20:.1f} MiB for {count} items of {numel} bytes "
        f"({identity_chars}-character identities) through a "
        f"{BUDGET / 2**20:.0f} MiB budget ({receiver_entries} entries kept)"
    )
