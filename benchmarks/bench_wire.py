"""V3's wire cost against V2 with nothing drifting, measured on the spec.

For each seed: a random workload (identities with random sizes, a budget every item fits,
requests of 1-3 distinct identities drawn with a skew so that identities recur, at most 1-3
requests unfinished at once) is run on V2 and on V3 under the same schedule: at each step a
seeded choice among the enabled protocol steps (P0 handling, P1 receiving, replies, retries)
and the next submission. The spec's own `step` is applied to both; a step enabled for one
variant and not for the other is counted as a divergence (and ends that trace).

Counted per wire item (request, attempt, position): a payload V3 sends where V2 sends a
reference, and the reverse; payload sizes in the spec's byte units; misses. V3's tags (8 bytes
per wire item in the reference implementation, references and payloads) are reported apart.
The first trace where the variants differ is printed in the trace notation (docs/notation.md).

    python benchmarks/bench_wire.py [--traces 2000] [--requests 10] [--seed 0]

Figures are printed, never asserted; they depend only on the seed (no timing).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

from model_checks.kernel import lru_notation
from spec import V2, V3, ClientItem, Config, Content, ItemSize, Trace, Variant, initial, step
from spec.state import Message, State
from spec.trace import Step
from spec.transitions import ACTION_TYPES, Action
from spec.transitions.client import Submit

TAG_BYTES = 8
"""Bytes of V3's tag per wire item in the reference implementation (front-end nonce, counter)."""


@dataclass(frozen=True)
class Workload:
    config: Config  # variant V2; V3 runs `with_variant`
    requests: tuple[tuple[ClientItem, ...], ...]

    def with_variant(self, variant: Variant) -> Config:
        c = self.config
        return Config(identities=c.identities, budget=c.budget, sizes=c.sizes, variant=variant,
                      max_in_flight=c.max_in_flight, max_requests=c.max_requests,
                      max_items=c.max_items, max_retries=c.max_retries)


def workload(rng: random.Random, requests: int) -> Workload:
    """Random identities, sizes, budget and requests; nothing drifting (every item fits the
    budget, every request fits it as a whole, one front end, one content per identity)."""
    names = tuple("abcdefgh"[: rng.randint(3, 6)])
    sizes = {n: rng.randint(1, 3) for n in names}
    budget = rng.randint(3, 6)
    weights = [1 / (rank + 1) for rank in range(len(names))]
    chosen: list[tuple[ClientItem, ...]] = []
    while len(chosen) < requests:
        count = rng.randint(1, 3)
        picked = list(dict.fromkeys(rng.choices(names, weights, k=count)))
        if sum(sizes[n] for n in picked) <= budget:
            chosen.append(tuple(ClientItem(n) for n in picked))
    config = Config(
        identities=names, budget=budget, variant=V2,
        sizes=tuple(ItemSize(Content(n), s, s) for n, s in sizes.items()),
        max_in_flight=rng.randint(1, 3), max_requests=requests, max_items=3,
    )
    return Workload(config, tuple(chosen))


REQUEST_STEPS = ("p0_handle", "p1_receive", "p0_receive_reply", "retry")
"""The steps that move requests along (a submission is the workload's; `clear_both`, always
enabled, is an operator's action, not traffic)."""


def protocol_steps(config: Config, state: State) -> list[Action]:
    """The enabled request steps."""
    if state.fault is not None:
        return []
    return [a for t in ACTION_TYPES if t.label in REQUEST_STEPS
            for a in t.candidates(config, state)
            if a.available(config) and a.guard(config, state)]


@dataclass
class Count:
    items: int = 0
    payloads: int = 0
    payload_bytes: int = 0
    misses: int = 0
    sent: dict[tuple[int, int, int], bool] = field(default_factory=dict)  # key -> payload?
    sizes: dict[tuple[int, int, int], int] = field(default_factory=dict)


def _record(count: Count, config: Config, state: State, message: Message) -> None:
    retries = state.requests[message.rid].retries
    for index, item in enumerate(message.items):
        key = (message.rid, retries, index)
        size = config.shadow_bytes(state.processings[item.placeholders].content)
        count.items += 1
        count.sent[key] = item.data is not None
        count.sizes[key] = size
        if item.data is not None:
            count.payloads += 1
            count.payload_bytes += size


@dataclass
class Run:
    trace_v2: Trace
    trace_v3: Trace
    v2: Count
    v3: Count
    diverged: bool


def run_both(load: Workload, rng: random.Random) -> Run:
    """V2 and V3 under one schedule; stops when every request is done and nothing is owed."""
    configs = (load.config, load.with_variant(V3))
    states = [initial(c) for c in configs]
    steps: list[list[Step]] = [[], []]
    counts = (Count(), Count())
    pending = list(load.requests)
    diverged = False
    while True:
        options = protocol_steps(configs[0], states[0])
        if pending:
            submit = Submit(pending[0])
            if submit.guard(configs[0], states[0]):
                options.append(submit)
        if not options:
            break
        action = rng.choice(options)
        if isinstance(action, Submit):
            pending.pop(0)
        try:
            after = [step(c, s, action) for c, s in zip(configs, states, strict=True)]
        except ValueError:  # InvalidAction: enabled for V2, not for V3
            diverged = True
            break
        for side in (0, 1):
            before, now = states[side], after[side]
            if action.label.startswith("p0_") and len(now.to_engine) > len(before.to_engine):
                _record(counts[side], configs[side], now, now.to_engine[-1])
            if now.last_delivery is not None and now.last_delivery.missed:
                counts[side].misses += 1
            steps[side].append(Step(action, now))
        states = after
    traces = [Trace(c, initial(c), tuple(s)) for c, s in zip(configs, steps, strict=True)]
    return Run(traces[0], traces[1], counts[0], counts[1], diverged)


@dataclass
class Totals:
    traces: int = 0
    items: int = 0
    payloads_v2: int = 0
    payloads_v3: int = 0
    bytes_v2: int = 0
    bytes_v3: int = 0
    v3_only: int = 0  # wire items V3 sends as a payload and V2 as a reference
    v2_only: int = 0
    v3_only_bytes: int = 0
    v2_only_bytes: int = 0
    traces_differing: int = 0
    misses: int = 0
    diverged: int = 0

    def add(self, run: Run) -> list[str]:
        """Add one run; the wire items on which the variants differ in it, in words."""
        self.traces += 1
        self.items += run.v2.items
        self.payloads_v2 += run.v2.payloads
        self.payloads_v3 += run.v3.payloads
        self.bytes_v2 += run.v2.payload_bytes
        self.bytes_v3 += run.v3.payload_bytes
        self.misses += run.v2.misses + run.v3.misses
        self.diverged += run.diverged
        differ = []
        for key, v3_payload in run.v3.sent.items():
            v2_payload = run.v2.sent.get(key)
            rid, retries, index = key
            where = f"r{rid} (attempt {retries + 1}) item {index + 1}"
            if v3_payload and v2_payload is False:
                self.v3_only += 1
                self.v3_only_bytes += run.v3.sizes[key]
                differ.append(f"{where}: a payload under V3, a reference under V2")
            elif not v3_payload and v2_payload:
                self.v2_only += 1
                self.v2_only_bytes += run.v2.sizes[key]
                differ.append(f"{where}: a payload under V2, a reference under V3")
        self.traces_differing += bool(differ)
        return differ


def runs(traces: int, requests: int, seed: int) -> Iterator[Run]:
    for number in range(traces):
        rng = random.Random(f"{seed}-{number}")
        yield run_both(workload(rng, requests), rng)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.2f} %" if whole else "n/a"


Example = tuple[Run, list[str]]


def report(totals: Totals, example: Example | None, command: str) -> str:
    t = totals
    lines = [
        f"command: {command}",
        f"{t.traces} random traces with nothing drifting, {t.items} wire items per variant "
        f"(schedules diverged: {t.diverged}; misses: {t.misses})",
        f"payloads: V2 {t.payloads_v2}, V3 {t.payloads_v3}; payload bytes (spec units): "
        f"V2 {t.bytes_v2}, V3 {t.bytes_v3}",
        f"V3 payload where V2 sent a reference: {t.v3_only} items "
        f"({_percent(t.v3_only, t.payloads_v2)} of V2's payloads), {t.v3_only_bytes} bytes "
        f"({_percent(t.v3_only_bytes, t.bytes_v2)} of V2's payload bytes)",
        f"V2 payload where V3 sent a reference: {t.v2_only} items "
        f"({_percent(t.v2_only, t.payloads_v2)}), {t.v2_only_bytes} bytes "
        f"({_percent(t.v2_only_bytes, t.bytes_v2)})",
        f"traces where the variants' payloads differ: {t.traces_differing} of {t.traces} "
        f"({_percent(t.traces_differing, t.traces)})",
        f"V3's tags: {TAG_BYTES} bytes per wire item, {TAG_BYTES * t.items} bytes over these "
        "traces (reference implementation; no extra message, no extra round trip)",
    ]
    if example is not None:
        run, differ = example
        lines += ["", f"shortest trace where they differ ({len(run.trace_v2.steps)} steps): "
                  + "; ".join(differ), "notation: docs/notation.md", "", "V2:",
                  lru_notation.step_text(run.trace_v2), "", "V3:",
                  lru_notation.step_text(run.trace_v3)]
    return "\n".join(lines)


def measure(traces: int, requests: int, seed: int) -> tuple[Totals, Example | None]:
    """The totals, and the shortest run where the variants differ (the first on ties)."""
    totals, example = Totals(), None
    for run in runs(traces, requests, seed):
        differ = totals.add(run)
        shorter = example is None or len(run.trace_v2.steps) < len(example[0].trace_v2.steps)
        if differ and shorter:
            example = run, differ
    return totals, example


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    command = "python benchmarks/bench_wire.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    totals, example = measure(args.traces, args.requests, args.seed)
    print(report(totals, example, command.rstrip()))


if __name__ == "__main__":
    main()
