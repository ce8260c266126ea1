"""The tag patch's cost per item: vLLM 0.33.0's caches against the patched copy, in one run.

The two releases cannot share a process (one `vllm` package each), so the script starts one
child per release (the wheel's vLLM; `build/vllm-0.33.0-patched` first on PYTHONPATH, built
by scripts/setup-vllm-patched) and keeps both alive, asking them for a round in turn, so that
both see the same load. A round times, per item, what the callers do with the caches for a
request of `--items` items:

- P0: `touch_sender_cache_item` for every identity, then the update (0.33.0:
  `get_and_update_item` per item, as `_merge_mm_kwargs` calls it; patched: one
  `get_and_update_tagged`), then `release_sender_touches`;
- P1: one `MultiModalFeatureSpec` per item (with `mm_tag` where the release has it) and
  `get_and_update_features`;

in two workloads: "miss" (every identity new: payloads, inserts, evictions once the budget
is full) and "hit" (the same identities again: references). Items are 4 KiB of float32.
Printed: per workload and side, the median over rounds of each round's nanoseconds per item,
for both releases, patched / 0.33.0, and the range of the per-round ratios (a round of each
release, taken one after the other). Figures are printed, never asserted.

The bytes on the wire: each child encodes the features of one request of the hit workload
(references) and of the miss workload (payloads), as its release builds them, with vLLM's
own `MsgpackEncoder` (what the engine client sends to the engine core); printed per feature
for both releases and their difference (exact: no timing).

    python benchmarks/bench_vllm_fix.py [--rounds 7] [--requests 500] [--items 4]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PATCHED = Path(os.environ.get("PAIRED_CACHES_VLLM_PATCHED",
                              ROOT / "build" / "vllm-0.33.0-patched"))
ITEM_FLOATS = 1024  # 4 KiB per item
BUDGET_ITEMS = 256  # the caches hold 256 items; the miss workload evicts once they are full


def _caches(vllm: Any) -> tuple[Any, Any]:
    """A sender and a receiver of BUDGET_ITEMS items."""
    from vllm.config import MultiModalConfig
    from vllm.multimodal.cache.lru import (
        LruKeyReplicatedReceiverCache,
        LruKeyReplicatedSenderCache,
    )

    class Config:
        multimodal = MultiModalConfig(
            mm_processor_cache_gb=BUDGET_ITEMS * ITEM_FLOATS * 4 / (1 << 30))

        def get_multimodal_config(self) -> Any:
            return self.multimodal

    del vllm
    return LruKeyReplicatedSenderCache(Config()), LruKeyReplicatedReceiverCache(Config())


def _processed(n: int) -> tuple[Any, list[Any]]:
    import torch
    from vllm.multimodal.inputs import (
        MultiModalBatchedField,
        MultiModalFieldElem,
        MultiModalKwargsItem,
        PlaceholderRange,
    )

    data = torch.full((ITEM_FLOATS,), float(n))
    item = MultiModalKwargsItem(
        {"pixel_values": MultiModalFieldElem(data=data, field=MultiModalBatchedField())})
    return item, [PlaceholderRange(offset=0, length=16)]


def _round(requests: int, items: int) -> dict[str, float]:
    """One round: nanoseconds per item for P0 and P1, miss and hit workloads."""
    import vllm
    from vllm.multimodal.inputs import MultiModalFeatureSpec

    sender, receiver = _caches(vllm)
    tagged = hasattr(sender, "get_and_update_tagged")
    work = [[(f"id{r}-{i}", _processed(i)) for i in range(items)] for r in range(requests)]
    hits = work[-(BUDGET_ITEMS // items):]  # the last requests' identities are all cached
    times: dict[str, float] = {}
    for name, requests_of in (("miss", work), ("hit", hits)):
        p0 = p1 = 0
        for request in requests_of:
            hashes = [h for h, _ in request]
            inputs = [p if name == "miss" else None for _, p in request]
            start = time.perf_counter_ns()
            for h in hashes:
                sender.touch_sender_cache_item(h)
            if tagged:
                out = sender.get_and_update_tagged(inputs, hashes)
            else:
                out = [(*sender.get_and_update_item(p, h), None) for p, h in zip(
                    inputs, hashes, strict=True)]
            sender.release_sender_touches()
            middle = time.perf_counter_ns()
            features = [MultiModalFeatureSpec(
                data=data, modality="image", identifier=h, mm_position=updates[0], mm_hash=h,
                **({"mm_tag": tag} if tagged else {}))
                for h, (data, updates, tag) in zip(hashes, out, strict=True)]
            receiver.get_and_update_features(features)
            p1 += time.perf_counter_ns() - middle
            p0 += middle - start
        count = len(requests_of) * items
        times[f"{name} P0"], times[f"{name} P1"] = p0 / count, p1 / count
    return times


def _wire(items: int) -> dict[str, float]:
    """Bytes per feature as vLLM's `MsgpackEncoder` encodes a request's features: its
    references (the items cached) and its payloads (the items new)."""
    from vllm.multimodal.inputs import MultiModalFeatureSpec
    from vllm.v1.serial_utils import MsgpackEncoder

    sender, _ = _caches(None)
    tagged = hasattr(sender, "get_and_update_tagged")
    encoder = MsgpackEncoder()
    request = [(f"id-{i}", _processed(i)) for i in range(items)]
    hashes = [h for h, _ in request]
    sizes = {}
    for name, inputs in (("payload", [p for _, p in request]), ("reference", [None] * items)):
        if tagged:
            out = sender.get_and_update_tagged(inputs, hashes)
        else:
            out = [(*sender.get_and_update_item(p, h), None) for p, h in zip(
                inputs, hashes, strict=True)]
        features = [MultiModalFeatureSpec(
            data=data, modality="image", identifier=h, mm_position=updates[0], mm_hash=h,
            **({"mm_tag": tag} if tagged else {}))
            for h, (data, updates, tag) in zip(hashes, out, strict=True)]
        encoded = sum(len(bytes(part)) for f in features for part in encoder.encode(f))
        sizes[name] = encoded / items
    return sizes


def child(requests: int, items: int) -> None:
    """Answer each line on stdin with one round's figures, or ("wire") the bytes per
    feature (a JSON line)."""
    for line in sys.stdin:
        answer = _wire(items) if line.strip() == "wire" else _round(requests, items)
        print(json.dumps(answer), flush=True)


def _start(patched: bool, requests: int, items: int) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if patched:
        env["PYTHONPATH"] = str(PATCHED)
    return subprocess.Popen([sys.executable, __file__, "--child", "--requests", str(requests),
                             "--items", str(items)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env, text=True)


def _ask(process: subprocess.Popen[str], what: str = "go") -> dict[str, float]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"{what}\n")
    process.stdin.flush()
    answer: dict[str, float] = json.loads(process.stdout.readline())
    return answer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--items", type=int, default=4)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.requests, args.items)
        return 0
    if not (PATCHED / "vllm").is_dir():
        print(f"bench_vllm_fix: no patched copy at {PATCHED}; run scripts/setup-vllm-patched")
        return 1
    releases = {"0.33.0": _start(False, args.requests, args.items),
                "patched": _start(True, args.requests, args.items)}
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in releases}
    try:
        wire = {name: _ask(process, "wire") for name, process in releases.items()}
        for process in releases.values():
            _ask(process)  # a warm-up round each, not counted
        for _ in range(args.rounds):
            for name, process in releases.items():
                rounds[name].append(_ask(process))
    finally:
        for process in releases.values():
            process.kill()
    print(f"ns per item, median of {args.rounds} rounds ({args.requests} requests of "
          f"{args.items} items of 4 KiB; caches of {BUDGET_ITEMS} items)")
    print(f"{'workload':<10}{'0.33.0':>10}{'patched':>10}{'ratio':>8}  per-round ratios")
    for key in rounds["0.33.0"][0]:
        before = statistics.median(r[key] for r in rounds["0.33.0"])
        after = statistics.median(r[key] for r in rounds["patched"])
        each = [p[key] / b[key] for b, p in zip(rounds["0.33.0"], rounds["patched"],
                                                 strict=True)]
        print(f"{key:<10}{before:>10.0f}{after:>10.0f}{after / before:>8.2f}  "
              f"{min(each):.2f}-{max(each):.2f}")
    print("bytes per feature on the wire (vLLM's MsgpackEncoder)")
    print(f"{'feature':<10}{'0.33.0':>10}{'patched':>10}{'more':>8}")
    for key in wire["0.33.0"]:
        before, after = wire["0.33.0"][key], wire["patched"][key]
        print(f"{key:<10}{before:>10.1f}{after:>10.1f}{after - before:>+8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
