"""The LRU binding's scripted corpus, the design's data as its scenario suite is
(`scenarios.catalog`): the scenario suite, the spec mutants' witness scripts and conformance's
own scripts (below), all run on the real variants (`corpus`); and the committed witnesses as
runs (`witness_cases`), the known breaks reached by the implementation's own lockstep runs.

For a run with `--environment`, every committed witness of the variant under check
(`docs/results/lattice/<variant>_<sources>_<property>.json.gz`: the shortest trace that breaks a
property in a minimal environment) whose environment lies inside the deployment's is a
`WitnessCase`: its actions driven in lockstep (a break it reaches is the implementation's own,
judged on its observations), then `CONTINUE` seeded spec steps beyond it, and `MUTANTS` seeded
mutants of it (one step deleted, then continued). A step the spec does not enable is skipped.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from model_checks.conform.adapter import Adapter
from model_checks.conform.lru_lockstep.driver import Lockstep
from model_checks.conform.lru_lockstep.implementation import EngineFactory
from model_checks.conform.lru_lockstep.runs import Driving, raised, replay
from model_checks.kernel import result_files
from model_checks.kernel.trace_file import BadTraceFile, replay_file
from model_checks.scenarios.base import Scenario, by_knob, every_variant, item, submit, uuid_only
from model_checks.scenarios.catalog import SCENARIOS, configured, round_trip
from spec import VARIANTS, Config, Content, Drift, ItemSize, Variant, enabled, initial, step
from spec import transitions as t
from spec.transitions import Action, InvalidAction

_HIT_AFTER_MISS = Scenario(
    "hit-after-miss-in-one-request",
    (),
    "P0 holds a and c (a least recent); the request [b, a] misses b and hits a. Touching the "
    "request's identities first makes a most recent, so b's insert evicts c; without the "
    "touch, in request order, b's insert evicts a before P0 reaches it.",
    configured(),
    (
        *round_trip(0, item("a")),
        *round_trip(1, item("c")),
        *round_trip(2, item("b"), item("a")),
    ),
    every_variant(""),
)
"""Conformance's own addition to the corpus (nothing drifts; every variant must agree)."""

_PARTIAL_MISS = Scenario(
    "miss-reply-names-some-items",
    ("D2",),
    "P0 holds a (served) and b (recorded by a request rejected after its update, D2: P1 "
    "never saw it). The request [a, b] is served a and misses b: the reply names b alone, "
    "and P0 must drop exactly b, keeping a (vllm#46747: invalidate exactly the missed).",
    configured("D2"),
    (
        *round_trip(0, item("a")),
        submit(item("b")),
        t.P0HandleRejected(1),
        *round_trip(2, item("a"), item("b")),
    ),
    by_knob(lambda v: v.reports_misses, "H1", "S3 H1 L4"),
)
"""A miss reply that names some of a request's items, not all (no scenario had one)."""


_REPLACEMENT_KEEPS_OTHERS = Scenario(
    "replacement-keeps-the-others",
    ("D10",),
    "P1 holds b and a (a most recent, the budget full); P0 restarts and resends a's payload. "
    "The receiver drops its old a before making room, so b stays: counting the old a while "
    "evicting would drop b for nothing (the payload wins, the rest of the cache is kept).",
    configured("D10"),
    (
        *round_trip(0, item("b")),
        *round_trip(1, item("a")),
        t.P0Restart(0),
        *round_trip(2, item("a")),
    ),
    every_variant(""),
)
"""A replacement in a full receiver (no scenario replaced an entry with others cached)."""


_SECOND_RETRY = Scenario(
    "second-retry-after-uuid-only-lost",
    ("D3",),
    "A request [a sent UUID-only, b] misses a (P1 cleared), then its first retry misses b "
    "(P1 cleared again); P0 is cleared before the second retry. The client's second resend "
    "must carry the media of every item: a loop that repeats the first attempt sends a "
    "UUID-only a that P0 no longer holds, and the request ends as a client error.",
    configured("D3"),
    (
        *round_trip(0, item("a")),
        submit(uuid_only("a"), item("b")), t.P0Handle(1), t.P1Clear(), t.P1Receive(0),
        t.P0ReceiveReply(),
        t.Retry(1), t.P0Handle(1), t.P1Clear(), t.P1Receive(0), t.P0ReceiveReply(),
        t.P0Clear(0), t.Retry(1), t.P0Handle(1), t.P1Receive(0), t.P0ReceiveReply(),
    ),
    every_variant("H1"),
    variants=tuple(v for v in VARIANTS if v.reports_misses),
)
"""A request that needs its second retry (no scenario retried twice)."""


_LOST_BEFORE_UPDATE = Scenario(
    "late-misses-lost-before-the-update",
    ("D6",),
    "P0 holds a and b; the request [a, b sent UUID-only] probes both as hits, then a "
    "two-byte c evicts both before its update (D6). V3 reprocesses a late miss with media "
    "but cannot reprocess b: it rejects the request before any change, naming b, with no "
    "processor call; V0-V2 assert on the first late miss.",
    configured("D6", sizes=(ItemSize(Content("c"), 2, 2),)),
    (
        *round_trip(0, item("a"), item("b")),
        submit(item("a"), uuid_only("b")), t.P0Process(1),
        *round_trip(2, item("c")),
        t.P0UpdateItem(1),
    ),
    by_knob(lambda v: v.late_miss_reprocess, "", "S3 L4"),
)
"""Unprocessable late misses (no scenario lost a request's probed hits before its update)."""


_REJECTION_NAMES_MISSING = Scenario(
    "rejection-names-the-missing-only",
    (),
    "P0 holds a; the request [a, b], both sent UUID-only, is rejected as a client error: "
    "the rejection names b, the item P0 does not hold, not a, which it could serve.",
    configured(),
    (*round_trip(0, item("a")), submit(uuid_only("a"), uuid_only("b")), t.P0Handle(1)),
    every_variant(""),
)
"""A rejection of a request with a UUID-only hit beside its UUID-only miss."""


def corpus() -> tuple[Scenario, ...]:
    """The scenario suite, the spec mutants' witness scripts and conformance's own scripts,
    all run on the real variants. The adapter API drives one engine, so a scenario of D5's
    router configuration (`engines=2`) has no implementation counterpart and is left out."""
    from model_checks.mutation.spec_mutants import spec_mutants

    one_engine = tuple(s for s in SCENARIOS if s.config(s.variants[0]).engines == 1)
    seen = {s.name for s in SCENARIOS}
    extra = [_HIT_AFTER_MISS, _PARTIAL_MISS, _REPLACEMENT_KEEPS_OTHERS, _SECOND_RETRY,
             _LOST_BEFORE_UPDATE, _REJECTION_NAMES_MISSING]
    for mutant in spec_mutants():
        if mutant.witness.name not in seen:
            seen.add(mutant.witness.name)
            extra.append(mutant.witness)
    return (*one_engine, *extra)


LATTICE = Path(__file__).resolve().parents[3] / "docs" / "results" / "lattice"
"""The committed witnesses (one trace file per variant, minimal environment, property)."""
MUTANTS = 2
"""Seeded mutants per witness (each: one step deleted, then continued)."""
CONTINUE = 8
"""Spec steps a run takes beyond its witness (seeded, among those enabled)."""


@dataclass(frozen=True)
class WitnessCase:
    """One witness (or a mutant of it) and its continuation, in lockstep on `config`."""

    variant: Variant
    config: Config
    name: str
    script: tuple[Action, ...]

    scripted: ClassVar[bool] = True
    """A failing witness run is shrunk greedily, as a scenario's (`lockstep.shrink`)."""

    @property
    def label(self) -> str:
        """The case's name in records and findings (after the variant)."""
        return f"witness {self.name}"

    def run(self, adapter: Adapter, factory: EngineFactory | None,
            sink: Callable[[Lockstep], None]) -> None:
        """Drive the script in lockstep; raises its `Disagreement`."""
        raised(replay(self.config, adapter, self.script, Driving(engine_factory=factory), sink))


def witness_cases(variant: Variant, environment: frozenset[Drift], seed: int,
                 root: Path = LATTICE) -> Iterator[WitnessCase]:
    """The witnesses of `variant` inside `environment`, each followed by its mutants."""
    for path in result_files.json_files(root):
        if not path.name.startswith(f"{variant.name}_"):
            continue
        try:
            trace = replay_file(path).trace
        except BadTraceFile:
            continue  # a file of another format: not a witness
        config = trace.config
        if config.variant.name != variant.name or not config.environment <= environment:
            continue
        actions = tuple(s.action for s in trace.steps)
        name = result_files.stem(path)
        rng = random.Random(zlib.crc32(f"{seed}:{name}".encode()))
        yield WitnessCase(variant, config, name, _continued(config, actions, rng))
        for number in range(1, MUTANTS + 1):
            if len(actions) < 2:
                break
            cut = rng.randrange(len(actions))
            mutant = actions[:cut] + actions[cut + 1:]
            yield WitnessCase(variant, config, f"{path.stem} mutant {number}",
                             _continued(config, mutant, rng))


def _continued(config: Config, actions: tuple[Action, ...], rng: random.Random
               ) -> tuple[Action, ...]:
    """`actions` (those the spec enables, in order) and `CONTINUE` seeded steps beyond."""
    state = initial(config)
    taken: list[Action] = []
    for action in actions:
        try:
            state = step(config, state, action)
        except InvalidAction:  # not enabled here (a mutant): skipped
            continue
        taken.append(action)
    for _ in range(CONTINUE):
        choices = enabled(config, state)
        if not choices:
            break
        action = choices[rng.randrange(len(choices))]
        state = step(config, state, action)
        taken.append(action)
    return tuple(taken)
