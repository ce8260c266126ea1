"""A conformance run: the scenario corpus, then random lockstep walks, per variant and
environment, within a profile's budget; typed results and verdict records.

Order of work, per variant the adapter supports: (1) every hand-written scenario of
`model_checks.scenarios` and every witness of `model_checks.mutants`, in lockstep, settled;
(2) `walks` random walks of `length` steps on each configuration of `configurations`, each
settled. The first disagreement stops the run; it is shrunk and reported with its trace.
"""

from __future__ import annotations

import re
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from model_checks.conform import codec
from model_checks.conform.adapter import (
    Adapter,
    EndToEnd,
    HarnessFailure,
    Setup,
    build_front_end,
    supports,
)
from model_checks.conform.judged import judged
from model_checks.conform.lockstep import (
    Broken,
    Disagreement,
    EngineFactory,
    Lockstep,
    run_actions,
    shrink,
)
from model_checks.conform.machine import lockstep_machine, run_machine
from model_checks.conform.profiles import PROFILES as PROFILES
from model_checks.conform.profiles import Profile as Profile
from model_checks.judged import NotJudged
from model_checks.records import CONFORMANCE, CONFORMANCE_SAFETY, Verdict, VerdictRecord
from model_checks.scenarios.base import Scenario, by_knob, every_variant, item, submit, uuid_only
from model_checks.scenarios.catalog import SCENARIOS, configured, round_trip
from spec import (
    ALL_DRIFT,
    VARIANTS,
    Config,
    Content,
    Drift,
    ItemSize,
    Variant,
    describe_environment,
    needs_of,
    registry,
)
from spec.transitions import (
    Action,
    P0Clear,
    P0Handle,
    P0HandleRejected,
    P0Process,
    P0ReceiveReply,
    P0Restart,
    P0UpdateItem,
    P1Clear,
    P1Receive,
    Retry,
    Submit,
)

_SKEW = (ItemSize(Content("b"), 1, 2), ItemSize(Content("c"), 2, 1))
_OVERSIZE = (ItemSize(Content("c"), 3, 3),)
_ALL_SIZES = (
    ItemSize(Content("a", 1), 1, 3),
    ItemSize(Content("b"), 1, 2),
    ItemSize(Content("c"), 3, 3),
)


_VARIED = (ItemSize(Content("b"), 2, 2),)
_VARIED_BUDGET = 3
"""Sizes that vary with no drift source: b two bytes, a and c one each, in a three-byte
budget (equal on both sides; D9 and D11 only make the sides disagree or exceed the budget):
any two items fit, three do not, so that an implementation counting items instead of bytes
disagrees in every environment."""

_WIDE_SIZES = (
    ItemSize(Content("b"), 2, 2),
    ItemSize(Content("b", 1), 1, 1),
    ItemSize(Content("c"), 1, 2),
    ItemSize(Content("d"), 5, 5),
)


def _alone(variant: Variant, drift: Drift) -> Config:
    """One drift source with the configuration it needs (`spec.Drift.needs`): two front ends
    on a one-byte budget, so that their shadows evict (D5); two contents per identity (D7);
    three items (D8); b and c skewed (D9); an oversized c (D11); elsewhere a two-byte b in a
    three-byte budget (`_VARIED`)."""
    needs = drift.needs
    budget = 1 if needs.front_ends > 1 else 2
    sizes = (*(_SKEW if needs.skewed_sizes else ()), *(_OVERSIZE if needs.oversized else ()))
    return Config(
        variant=variant, environment=frozenset({drift}), max_requests=6,
        front_ends=needs.front_ends, budget=budget,
        versions=needs.versions, max_items=max(2, needs.items),
        sizes=sizes,
    ) if sizes or budget < 2 else Config(
        variant=variant, environment=frozenset({drift}), max_requests=6,
        front_ends=needs.front_ends, budget=_VARIED_BUDGET, versions=needs.versions,
        max_items=max(2, needs.items), sizes=_VARIED,
    )


def _combined(variant: Variant, env: frozenset[Drift]) -> Config:
    """Every source of `env` at once, each with what it needs (`spec.Drift.needs`): two front
    ends (D5), two contents (D7), three items (D8), skewed sizes (D9, with D7 also a@1's), an
    oversized c (D11)."""
    needs = needs_of(env)
    sizes = tuple(s for s in _ALL_SIZES if (
        (s.content.identity == "a" and needs.versions > 1 and needs.skewed_sizes)
        or (s.content.identity == "b" and needs.skewed_sizes)
        or (s.content.identity == "c" and needs.oversized)))
    budget = 2
    if not any(s.content.identity == "b" for s in sizes):
        sizes = (*sizes, *_VARIED)
        budget = 2 if needs.oversized else _VARIED_BUDGET
    return Config(
        variant=variant, environment=env, front_ends=needs.front_ends, budget=budget,
        versions=needs.versions, max_items=max(2, needs.items),
        sizes=sizes, max_requests=7, max_in_flight=3,
    )


def configurations(
    variant: Variant, wide: bool = False, environment: frozenset[Drift] | None = None,
) -> Iterator[tuple[str, Config]]:
    """No drift, each drift source alone (with the configuration it needs), all at once, and
    (`wide`) all at once with four identities of mixed sizes in a 4-byte budget. Sizes vary
    in each (a two-byte b beside one-byte items, where the budget has room for it).

    `environment` (a deployment's drift sources; None: every source): only the sources in
    it, alone and all of them at once (labelled by the environment); the wide configuration,
    which needs every source, only when it is every source."""
    env = ALL_DRIFT if environment is None else environment
    yield "none", Config(variant=variant, max_requests=6, budget=_VARIED_BUDGET, sizes=_VARIED)
    for drift in Drift:
        if drift not in env:
            continue
        yield drift.value, _alone(variant, drift)
    if len(env) > 1:
        yield "all" if env == ALL_DRIFT else describe_environment(env), _combined(variant, env)
    if wide and env == ALL_DRIFT:
        yield "all-wide", Config(
            identities=("a", "b", "c", "d"), budget=4, variant=variant, environment=ALL_DRIFT,
            front_ends=2, versions=2, max_items=3, sizes=_WIDE_SIZES, max_requests=8,
            max_in_flight=3,
        )


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
        P0HandleRejected(1),
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
        P0Restart(0),
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
        submit(uuid_only("a"), item("b")), P0Handle(1), P1Clear(), P1Receive(0),
        P0ReceiveReply(),
        Retry(1), P0Handle(1), P1Clear(), P1Receive(0), P0ReceiveReply(),
        P0Clear(0), Retry(1), P0Handle(1), P1Receive(0), P0ReceiveReply(),
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
        submit(item("a"), uuid_only("b")), P0Process(1),
        *round_trip(2, item("c")),
        P0UpdateItem(1),
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
    (*round_trip(0, item("a")), submit(uuid_only("a"), uuid_only("b")), P0Handle(1)),
    every_variant(""),
)
"""A rejection of a request with a UUID-only hit beside its UUID-only miss."""


def corpus() -> tuple[Scenario, ...]:
    """The scenario suite, the spec mutants' witness scripts and conformance's own scripts,
    all run on the real variants. The adapter API drives one engine, so a scenario of D5's
    router configuration (`engines=2`) has no implementation counterpart and is left out."""
    from model_checks.mutants import MUTANTS

    one_engine = tuple(s for s in SCENARIOS if s.config(s.variants[0]).engines == 1)
    seen = {s.name for s in SCENARIOS}
    extra = [_HIT_AFTER_MISS, _PARTIAL_MISS, _REPLACEMENT_KEEPS_OTHERS, _SECOND_RETRY,
             _LOST_BEFORE_UPDATE, _REJECTION_NAMES_MISSING]
    for mutant in MUTANTS:
        if mutant.witness.name not in seen:
            seen.add(mutant.witness.name)
            extra.append(mutant.witness)
    return (*one_engine, *extra)


@dataclass(frozen=True)
class Finding:
    """One disagreement, shrunk, and the job it was found in (e.g. "V3 walks D7")."""

    where: str
    disagreement: Disagreement
    config: Config


@dataclass(frozen=True)
class PropertyBroken:
    """A property the implementation broke (its first and shortest trace over the run): the
    job, its configuration, and the lockstep evidence (`Broken`)."""

    where: str
    config: Config
    broken: Broken


@dataclass
class Outcome:
    """What a run found: steps taken, seconds, the variants checked and not checked (the
    adapter does not support them), the disagreements (one per job with `keep_going`, else
    the first), a harness failure if one stopped the run, the properties the implementation
    broke, and the verdict records."""

    adapter: str
    steps: int = 0
    seconds: float = 0.0
    checked: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    harness: str | None = None  # "where: what" of a harness failure
    broken: dict[tuple[str, str], PropertyBroken] = field(default_factory=dict)
    """(variant, property) -> the shortest trace on which the implementation broke it."""
    records: list[VerdictRecord] = field(default_factory=list)

    @property
    def failure(self) -> Disagreement | None:
        return self.findings[0].disagreement if self.findings else None

    @property
    def where(self) -> str:
        return self.findings[0].where if self.findings else ""

    @property
    def conforms(self) -> bool:
        """Only a run that did work and found nothing conforms (0 steps never does)."""
        return self.steps > 0 and not self.findings and self.harness is None

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0

    def note_broken(self, where: str, config: Config, found: dict[str, Broken]) -> None:
        """Keep, per variant and property, the shortest trace on which the implementation
        broke it."""
        for prop, broken in found.items():
            key = (config.variant.name, prop)
            known = self.broken.get(key)
            if known is None or broken.step < known.broken.step:
                self.broken[key] = PropertyBroken(where, config, broken)

    def broken_properties(self) -> dict[str, PropertyBroken]:
        """Per property, the shortest trace over every variant checked."""
        shortest: dict[str, PropertyBroken] = {}
        for (_, prop), found in sorted(self.broken.items()):
            known = shortest.get(prop)
            if known is None or found.broken.step < known.broken.step:
                shortest[prop] = found
        return shortest

    def safety_records(self, seconds: float) -> list[VerdictRecord]:
        """Checker `conformance-safety`: per variant checked and property, whether the
        implementation broke it (its own observations; S4 and H1 through the agreed trace).
        A property conformance does not judge (`conform.judged`) is recorded as unknown,
        with the reason, never as holding."""
        records = []
        table = judged()
        for variant in self.checked:
            for prop in registry():
                answer = table[prop.id]
                if isinstance(answer, NotJudged):
                    records.append(VerdictRecord(
                        CONFORMANCE_SAFETY.record, variant, (), prop.id, Verdict.UNKNOWN,
                        self.steps, "steps", seconds, detail=f"not judged: {answer.reason}"))
                    continue
                found = self.broken.get((variant, prop.id))
                records.append(VerdictRecord(
                    CONFORMANCE_SAFETY.record, variant, () if found is None else _environment(
                        found.config), prop.id,
                    Verdict.HOLDS if found is None else Verdict.COUNTEREXAMPLE,
                    self.steps, "steps", seconds,
                    counterexample_length=None if found is None else found.broken.step,
                    detail=f"{self.adapter}" + ("" if found is None else
                                                f", {found.where}: {found.broken.reason}"),
                ))
        return records


def conform(
    adapter: Adapter,
    profile: Profile,
    *,
    variants: tuple[str, ...] | None = None,
    engine_factory: EngineFactory | None = None,
    seed: int = 0,
    shrink_failure: bool = True,
    keep_going: bool = False,
    environment: frozenset[Drift] | None = None,
) -> Outcome:
    """Run the profile's checks on `adapter`. A variant the adapter does not support is
    listed as not checked. The first disagreement stops the run (`keep_going`: the job, and
    the run goes on with the next job); a `HarnessFailure` always stops it. `environment`
    (None: every drift source) drives the implementation only through that deployment's
    drift events and configurations: scenarios whose environment lies inside it, and the
    generated runs of `configurations(..., environment)`."""
    outcome = Outcome(adapter.name)
    start = time.perf_counter()
    for variant in VARIANTS:
        if variants is not None and variant.name not in variants:
            continue
        if not supports(adapter, variant.name):
            outcome.not_checked.append(variant.name)
            continue
        outcome.checked.append(variant.name)
        served = _offers_serve(adapter, variant.name)
        for label, config, job, scripted in _jobs(variant, profile, seed, environment,
                                                  served):
            if not _job(outcome, adapter, variant, label, config, job, scripted,
                        engine_factory, shrink_failure):
                outcome.seconds = time.perf_counter() - start
                return outcome
            if outcome.findings and not keep_going:
                outcome.seconds = time.perf_counter() - start
                return outcome
    outcome.seconds = time.perf_counter() - start
    return outcome


def _offers_serve(adapter: Adapter, variant: str) -> bool:
    """Whether the adapter's front end offers its own end-to-end call (`EndToEnd`)."""
    setup = Setup(2, variant, 1, codec.process_media)
    return isinstance(build_front_end(adapter, setup, 0), EndToEnd)


def _job(
    outcome: Outcome,
    adapter: Adapter,
    variant: Variant,
    label: str,
    config: Config,
    job: Job,
    scripted: bool,
    engine_factory: EngineFactory | None,
    shrink_failure: bool,
) -> bool:
    """Run one job into `outcome`; False if a harness failure stopped it."""
    where = f"{variant.name} {label}"
    t0 = time.perf_counter()
    verdicts: dict[str, int | None] = {p.id: None for p in registry()}
    steps = 0
    failure: Disagreement | None = None

    def sink(run: Lockstep) -> None:
        nonlocal steps
        steps += len(run.actions)
        _spec_verdicts(run, verdicts)
        outcome.note_broken(where, config, run.broken)

    try:
        job(adapter, engine_factory, sink)
    except Disagreement as found:
        if scripted:
            steps += len(found.actions)
        outcome.note_broken(where, config, found.broken)
        try:
            if shrink_failure:  # generated: after Hypothesis's shrinking, a deletion pass
                found = shrink(config, adapter, found, engine_factory=engine_factory)
                outcome.note_broken(where, config, found.broken)
        except HarnessFailure as error:
            outcome.harness = f"{where}: {error}"
        failure = found
        outcome.findings.append(Finding(where, found, config))
    except HarnessFailure as error:
        outcome.harness = f"{where}: {error}"
    outcome.steps += steps
    seconds = time.perf_counter() - t0
    if outcome.harness is not None:
        env = _environment(config)
        outcome.records.append(VerdictRecord(
            CONFORMANCE.record, variant.name, env, "lockstep", Verdict.UNKNOWN, steps, "steps",
            seconds, detail=f"{adapter.name}, {label}: harness failure: {outcome.harness}",
        ))
        return False
    outcome.records += _records(adapter, variant, config, label, verdicts, steps, seconds,
                                failure)
    return True


Job = Callable[[Adapter, "EngineFactory | None", Callable[[Lockstep], None]], None]
"""Runs one job's lockstep runs, handing each finished run to the sink; raises the job's
`Disagreement` (shrunk already, for a generated job)."""


def _jobs(
    variant: Variant, profile: Profile, seed: int, environment: frozenset[Drift] | None = None,
    served: bool = False,
) -> Iterator[tuple[str, Config, Job, bool]]:
    """(label, configuration, job, scripted): the corpus (scripted, shrunk greedily when
    it fails), then one Hypothesis machine per configuration (shrunk by Hypothesis); with
    `environment`, only what lies inside it. `served` (an adapter whose front end offers
    `EndToEnd`): each scenario with a plain round trip is run a second time with those round
    trips through the implementation's own end-to-end call, its engine in this process (also
    with `--processes 2`)."""
    if profile.corpus:
        for scenario in corpus():
            if variant in scenario.variants:
                config = scenario.config(variant)
                if environment is not None and not config.environment <= environment:
                    continue

                def scripted(adapter: Adapter, factory: EngineFactory | None,
                             sink: Callable[[Lockstep], None],
                             s: Scenario = scenario, c: Config = config) -> None:
                    sink(run_actions(c, adapter, s.script, settle=s.settle,
                                     engine_factory=factory))

                yield f"scenario {scenario.name}", config, scripted, True
                if served and _has_round_trip(scenario.script, config):

                    def end_to_end(adapter: Adapter, factory: EngineFactory | None,
                                   sink: Callable[[Lockstep], None],
                                   s: Scenario = scenario, c: Config = config) -> None:
                        del factory  # the end-to-end call needs the engine in this process
                        sink(run_actions(c, adapter, s.script, settle=s.settle, served=True))

                    yield f"served {scenario.name}", config, end_to_end, True
    chosen = configurations(variant, profile.wide, environment) if profile.walks else ()
    for label, config in chosen:

        def generated(adapter: Adapter, factory: EngineFactory | None,
                      sink: Callable[[Lockstep], None],
                      c: Config = config, name: str = label) -> None:
            ident = re.sub(r"\W", "_", f"{variant.name}_{name}")
            machine = lockstep_machine(ident, c, adapter, factory, sink)
            key = f"{seed}:{variant.name}:{name}".encode()
            run_machine(machine, profile.walks, profile.length, zlib.crc32(key),
                        database=profile.database)

        yield f"generated {label}", config, generated, False


def _has_round_trip(script: tuple[Action, ...], config: Config) -> bool:
    """A submit followed by its handle, P1's receive of the first message, the reply."""
    if config.enables(Drift.D9):
        return False
    return any(
        isinstance(a, Submit) and isinstance(b, P0Handle) and isinstance(c, P1Receive)
        and c.index == 0 and isinstance(d, P0ReceiveReply)
        for a, b, c, d in zip(script, script[1:], script[2:], script[3:], strict=False)
    )


def _environment(config: Config) -> tuple[str, ...]:
    if not config.environment:
        return ()
    return tuple(describe_environment(config.environment).split("+"))


def _spec_verdicts(run: Lockstep, verdicts: dict[str, int | None]) -> None:
    trace = run.trace()
    for prop in registry():
        if verdicts[prop.id] is None and prop.check_trace(trace) is not None:
            verdicts[prop.id] = len(trace.steps)


def _records(
    adapter: Adapter,
    variant: Variant,
    config: Config,
    label: str,
    verdicts: dict[str, int | None],
    steps: int,
    seconds: float,
    failure: Disagreement | None,
) -> list[VerdictRecord]:
    env = _environment(config)
    detail = f"{adapter.name}, {label}"
    records = [
        VerdictRecord(
            CONFORMANCE.record, variant.name, env, "lockstep",
            Verdict.COUNTEREXAMPLE if failure else Verdict.HOLDS, steps, "steps", seconds,
            counterexample_length=len(failure.actions) if failure else None,
            detail=detail + (f": {failure}" if failure else ""),
        )
    ]
    if failure is None:
        for prop_id, length in verdicts.items():
            records.append(VerdictRecord(
                CONFORMANCE.record, variant.name, env, prop_id,
                Verdict.HOLDS if length is None else Verdict.COUNTEREXAMPLE, steps, "steps",
                seconds, counterexample_length=length,
                detail=detail + "; the implementation agreed at every step",
            ))
    return records

