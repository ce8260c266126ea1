"""What V4's resends cost, against V3 and V2, with nothing drifting and under each drift source.

V4 is V3 plus resends that bypass the shadow: the client's retry after a miss error sends
every item as a payload, processed again and recorded afresh. This script measures that on
the spec. For each trace number and environment (nothing drifting, then each of D1-D11
alone) one seeded random workload is built: the workload of benchmarks/bench_wire.py (the
same for every environment of a trace number), with what a configuration source needs to
exist at all (`spec.Drift.needs`): two front ends and each request sent to one of them (D5),
a second content of another size for every identity and items that name it (D7), requests
of three items over the budget (D8), one or two identities that P1 sizes apart from P0 (D9),
one identity over the budget on both sides (D11). V2, V3 and V4 each run that workload under
the same schedule: one seeded stream of two draws per step, read alike by every variant. The
first draw takes a drift step (one enabled by the environment: a reordered delivery, a
rejection, a clear, a split update, a restart) with probability `--drift-probability` when
one is enabled; the second picks among the enabled steps of that kind (the protocol's steps
and the workload's next submission, or the drift steps), each list in the spec's own order.
While the variants' states agree their choices agree; once a miss makes them differ, each
follows the same draws through its own enabled steps. A run ends when no protocol step is
enabled and every request was submitted.

Counted per variant and environment, per submitted request unless said: wire items sent as
payloads and their bytes (spec byte units, P0's sizing), items sent as references, misses
(P1 answering an attempt with the miss error), retries, processor runs (all of them, and per
resend: the runs of the attempts that follow a retry, divided by the retries), resends that
P1 answered with a miss again, and the requests that ended without success, by outcome.
The distributions are over traces (payload bytes per request) and over resends (processor
runs per resend): their medians are printed beside the means; ratios are against V3 in the
same run. The wire overhead per message P0 -> P1 relative to V2 is the tag: 8 bytes per
wire item in the reference implementation (V3 and V4 alike; V4's resend mark travels from
the client to P0, never from P0 to P1).

    python benchmarks/bench_resend.py [--traces 1000] [--requests 10] [--seed 0]

Figures are printed, never asserted; they depend only on the seed (no timing).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_wire, its sibling

from bench_wire import TAG_BYTES, Count, _record, workload

from spec import (
    DRIFT_IDS,
    V2,
    V3,
    V4,
    ClientItem,
    Config,
    Content,
    Drift,
    ItemSize,
    Outcome,
    State,
    Variant,
    initial,
    step,
)
from spec.transitions import ACTION_TYPES, Action, ClearBoth, P1Receive, Retry
from spec.transitions.client import Submit, request_fits_unless_d8, well_formed

COMPARED: tuple[Variant, ...] = (V2, V3, V4)
"""The variants measured, in the table's order; ratios are against V3."""

ENVIRONMENTS: tuple[Drift | None, ...] = (None, *(Drift(d) for d in DRIFT_IDS))
"""Nothing drifting, then each drift source alone, in numeric order."""

DRIFT_PROBABILITY = 0.1
"""The chance that a step is a drift step, when one is enabled."""

REUSE_PROBABILITY = 0.3
"""Under D7: the chance that an item names its identity's second content."""

OVER_BUDGET_PROBABILITY = 0.3
"""Under D8: the chance that a request is replaced by one of three items over the budget."""

STEPS_PER_REQUEST = 60
"""A run stops after this many steps per request (counted as unfinished): a bound only."""


def env_name(drift: Drift | None) -> str:
    return "none" if drift is None else drift.value


@dataclass(frozen=True)
class Workload:
    """A configuration (variant V3; the others run `with_variant`), the requests in
    submission order, and the front end each is sent to."""

    config: Config
    requests: tuple[tuple[ClientItem, ...], ...]
    front_ends: tuple[int, ...]

    def with_variant(self, variant: Variant) -> Config:
        return replace(self.config, variant=variant)


def drift_workload(seed: int, number: int, requests: int, drift: Drift | None) -> Workload:
    """bench_wire's workload for trace `number` (the same under every environment), with what
    `drift` needs to exist at all; the drift's own choices come from a second stream."""
    base = workload(random.Random(f"{seed}-{number}"), requests)
    rng = random.Random(f"{seed}-{number}-{env_name(drift)}")
    config = base.config
    names, budget = config.identities, config.budget
    sizes = {s.content: s for s in config.sizes}
    chosen = list(base.requests)
    front_ends = [0] * len(chosen)
    versions = 1
    if drift is Drift.D5:
        front_ends = [rng.randrange(2) for _ in chosen]
    elif drift is Drift.D7:
        versions = 2
        for name in names:
            size = rng.randint(1, budget)
            sizes[Content(name, 1)] = ItemSize(Content(name, 1), size, size)
    elif drift is Drift.D8:
        for index in range(len(chosen)):
            picked = tuple(ClientItem(n) for n in rng.sample(names, 3))
            over_budget = sum(sizes[i.content].shadow_bytes for i in picked) > budget
            if over_budget and rng.random() < OVER_BUDGET_PROBABILITY:
                chosen[index] = picked
    elif drift is Drift.D9:
        for name in rng.sample(names, rng.randint(1, 2)):
            old = sizes[Content(name)]
            skewed = old.shadow_bytes + rng.choice((-1, 1, 2))
            skewed = skewed if skewed >= 1 else old.shadow_bytes + 1
            sizes[old.content] = ItemSize(old.content, old.shadow_bytes, skewed)
    elif drift is Drift.D11:
        name = rng.choice(names)
        oversized = budget + rng.randint(1, 2)
        sizes[Content(name)] = ItemSize(Content(name), oversized, oversized)
    config = replace(
        config, variant=V3, sizes=tuple(sizes.values()), versions=versions,
        environment=frozenset(() if drift is None else (drift,)),
        front_ends=2 if drift is Drift.D5 else 1,
    )
    if drift is Drift.D7:
        chosen = [_reused(config, items, rng) for items in chosen]
    for items in chosen:
        assert well_formed(config, items) and request_fits_unless_d8(config, items), items
    return Workload(config, tuple(chosen), tuple(front_ends))


def _reused(config: Config, items: tuple[ClientItem, ...],
            rng: random.Random) -> tuple[ClientItem, ...]:
    """Under D7: each item names its identity's second content with `REUSE_PROBABILITY`,
    unless the request would then not fit the budget (a request over it is D8's)."""
    reused = tuple(ClientItem(i.identity, int(rng.random() < REUSE_PROBABILITY)) for i in items)
    return reused if request_fits_unless_d8(config, reused) else items


def _step_types(config: Config) -> tuple[type[Action], ...]:
    """The action classes a schedule picks from: every available one but the submissions
    (the workload's, in its order) and the operator's synchronised clear (no traffic)."""
    return tuple(t for t in ACTION_TYPES if t not in (Submit, ClearBoth)
                 and (t.requires is None or config.enables(t.requires)))


def enabled_steps(config: Config, state: State) -> tuple[list[Action], list[Action]]:
    """The enabled steps, split: the protocol's own (owed work) and the drift steps."""
    protocol: list[Action] = []
    drift: list[Action] = []
    if state.fault is not None:
        return protocol, drift
    for action_type in _step_types(config):
        for action in action_type.enabled_instances(config, state):
            (protocol if action.drift_event() is None else drift).append(action)
    return protocol, drift


@dataclass
class Run:
    """One variant's run of one workload."""

    variant: str
    steps: int = 0
    labels: list[str] = field(default_factory=list)  # the actions taken, in order
    wire: Count = field(default_factory=Count)  # bench_wire's per-wire-item record
    messages: int = 0
    misses: int = 0
    retries: int = 0
    resend_runs: dict[tuple[int, int], int] = field(default_factory=dict)  # (rid, retries)
    resend_misses: int = 0
    processings: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)  # requests not ending in success
    requests: int = 0


def run_variant(load: Workload, variant: Variant, schedule: str, drift_probability: float,
                ) -> Run:
    """`variant` on `load`, its schedule drawn from a stream seeded with `schedule`."""
    config = load.with_variant(variant)
    rng = random.Random(schedule)
    state = initial(config)
    run = Run(variant.name, requests=len(load.requests))
    submitted = 0
    limit = STEPS_PER_REQUEST * len(load.requests)
    while run.steps < limit:
        protocol, drift = enabled_steps(config, state)
        if submitted < len(load.requests):
            submit = Submit(load.requests[submitted], load.front_ends[submitted])
            if submit.guard(config, state):
                protocol.append(submit)
        if not protocol:
            break
        take_drift, pick = rng.random() < drift_probability, rng.random()
        pool = drift if drift and take_drift else protocol
        action = pool[int(pick * len(pool))]
        submitted += isinstance(action, Submit)
        before, state = state, step(config, state, action)
        run.steps += 1
        run.labels.append(repr(action))
        _observe(run, config, action, before, state)
    for request in state.requests:
        if request.outcome is not Outcome.SUCCESS:
            run.outcomes[request.outcome.value if request.outcome else "unfinished"] += 1
    run.outcomes["unfinished"] += len(load.requests) - len(state.requests)
    run.processings = len(state.processings)
    return run


def _observe(run: Run, config: Config, action: Action, before: State, now: State) -> None:
    """Count what one step did."""
    if len(now.to_engine) > len(before.to_engine):
        run.messages += 1
        _record(run.wire, config, now, now.to_engine[-1])
    rid = getattr(action, "rid", None)
    if isinstance(action, Retry):
        run.retries += 1
        run.resend_runs[(action.rid, now.requests[action.rid].retries)] = 0
    elif rid is not None and before.requests[rid].retries > 0:
        key = (rid, before.requests[rid].retries)
        run.resend_runs[key] += len(now.processings) - len(before.processings)
    delivery = now.last_delivery if isinstance(action, P1Receive) else None
    if delivery is not None and delivery.missed:
        run.misses += 1
        run.resend_misses += now.requests[delivery.message.rid].retries > 0


@dataclass(frozen=True)
class Trace:
    """The three variants' runs of one workload under one schedule."""

    environment: str
    runs: dict[str, Run]


def traces(count: int, requests: int, seed: int,
           drift_probability: float = DRIFT_PROBABILITY,
           environments: tuple[Drift | None, ...] = ENVIRONMENTS) -> Iterator[Trace]:
    for drift in environments:
        for number in range(count):
            load = drift_workload(seed, number, requests, drift)
            schedule = f"{seed}-{number}-{env_name(drift)}-schedule"
            yield Trace(env_name(drift), {
                v.name: run_variant(load, v, schedule, drift_probability) for v in COMPARED})


@dataclass
class Totals:
    """One variant's sums over one environment's traces."""

    traces: int = 0
    requests: int = 0
    steps: int = 0
    messages: int = 0
    items: int = 0
    payloads: int = 0
    payload_bytes: int = 0
    misses: int = 0
    retries: int = 0
    resend_runs: int = 0
    resend_misses: int = 0
    processings: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    bytes_per_request: list[float] = field(default_factory=list)  # one per trace
    runs_per_resend: list[int] = field(default_factory=list)  # one per resend

    def add(self, run: Run) -> None:
        self.traces += 1
        self.requests += run.requests
        self.steps += run.steps
        self.messages += run.messages
        self.items += run.wire.items
        self.payloads += run.wire.payloads
        self.payload_bytes += run.wire.payload_bytes
        self.misses += run.misses
        self.retries += run.retries
        self.resend_runs += sum(run.resend_runs.values())
        self.resend_misses += run.resend_misses
        self.processings += run.processings
        self.outcomes.update(run.outcomes)
        self.bytes_per_request.append(run.wire.payload_bytes / run.requests)
        self.runs_per_resend.extend(run.resend_runs.values())

    @property
    def references(self) -> int:
        return self.items - self.payloads


Measured = dict[tuple[str, str], Totals]
"""(environment, variant) -> totals."""


@dataclass
class Measurement:
    totals: Measured
    same_schedule: Counter[str]  # per environment: traces where V3 and V4 took the same steps


def measure(traces_: int, requests: int, seed: int,
            drift_probability: float = DRIFT_PROBABILITY,
            environments: tuple[Drift | None, ...] = ENVIRONMENTS) -> Measurement:
    totals: Measured = {}
    same: Counter[str] = Counter()
    for trace in traces(traces_, requests, seed, drift_probability, environments):
        for name, run in trace.runs.items():
            totals.setdefault((trace.environment, name), Totals()).add(run)
        same[trace.environment] += trace.runs["V3"].labels == trace.runs["V4"].labels
    return Measurement(totals, same)


def _per(part: float, whole: int, digits: int = 2) -> str:
    return f"{part / whole:.{digits}f}" if whole else "n/a"


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole:.2f}x" if whole else ("1.00x" if not part else "n/a")


def _median(values: list[float] | list[int], digits: int = 2) -> str:
    return f"{statistics.median(values):.{digits}f}" if values else "n/a"


def _outcomes(outcomes: Counter[str]) -> str:
    kept = {k: n for k, n in sorted(outcomes.items()) if n}
    return ", ".join(f"{k} {n}" for k, n in kept.items()) if kept else "0"


HEADER = (
    "| drift | variant | payloads/req | payload bytes/req: mean (median) | bytes vs V3 "
    "| refs/req | misses/req | retries/req | processor runs/req (vs V3) "
    "| processor runs per resend: mean (median) | resends missed again "
    "| requests not succeeded | wire bytes/msg over V2 |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
)


def row(env: str, variant: str, t: Totals, v3: Totals) -> str:
    tags = 0.0 if variant == "V2" else TAG_BYTES * t.items / t.messages if t.messages else 0.0
    return (
        f"| {env} | {variant} | {_per(t.payloads, t.requests)} "
        f"| {_per(t.payload_bytes, t.requests)} ({_median(t.bytes_per_request)}) "
        f"| {_ratio(t.payload_bytes, v3.payload_bytes)} | {_per(t.references, t.requests)} "
        f"| {_per(t.misses, t.requests, 3)} | {_per(t.retries, t.requests, 3)} "
        f"| {_per(t.processings, t.requests)} ({_ratio(t.processings, v3.processings)}) "
        f"| {_per(t.resend_runs, t.retries)} ({_median(t.runs_per_resend, 1)}) "
        f"| {t.resend_misses} of {t.retries} | {_outcomes(t.outcomes)} | +{tags:.1f} |"
    )


def report(measured: Measurement, command: str, drift_probability: float) -> str:
    totals = measured.totals
    envs = list(dict.fromkeys(env for env, _ in totals))
    first = totals[(envs[0], "V3")]
    lines = [
        f"command: {command}",
        f"{first.traces} traces per environment of {first.requests // first.traces} requests "
        f"each, V2, V3 and V4 under the same schedule per trace; drift steps taken with "
        f"probability {drift_probability} when enabled. Per submitted request; medians over "
        "traces (payload bytes) and over resends (processor runs); ratios against V3 of the "
        "same run. Nothing is asserted.",
        "",
        *HEADER,
    ]
    for env in envs:
        v3 = totals[(env, "V3")]
        lines += [row(env, v.name, totals[(env, v.name)], v3) for v in COMPARED]
    steps = sum(t.steps for t in totals.values())
    same = ", ".join(f"{env} {measured.same_schedule[env]}" for env in envs)
    lines += [
        "",
        f"steps taken: {steps}. Traces where V3 and V4 took the same actions (of "
        f"{first.traces} per environment): {same}.",
        f"wire bytes/msg over V2: the tag, {TAG_BYTES} bytes per wire item in the reference "
        "implementation, times the wire items per message P0 -> P1; V4 adds nothing to the "
        "wire beyond V3 (the resend mark travels from the client to P0, not from P0 to P1). "
        "Payload bytes are P0's sizing, in the spec's byte units.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", type=int, default=1000, help="traces per environment")
    parser.add_argument("--requests", type=int, default=10, help="requests per trace")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--drift-probability", type=float, default=DRIFT_PROBABILITY)
    args = parser.parse_args(argv)
    command = "python benchmarks/bench_resend.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    measured = measure(args.traces, args.requests, args.seed, args.drift_probability)
    print(report(measured, command.rstrip(), args.drift_probability))


if __name__ == "__main__":
    main()
