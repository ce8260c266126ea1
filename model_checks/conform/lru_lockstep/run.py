"""The LRU design's conformance run: its cases (`lru_lockstep.cases`: the scenario corpus,
then random lockstep walks, per variant and environment, within a profile's budget) taken by
the one run loop (`conform.run.run_cases`), and what they showed: typed results and verdict
records.

Order of work, per variant the adapter supports (`cases`): (1) every script of the corpus
(`corpus`: the hand-written scenarios of `model_checks.scenarios`, every witness of the spec
mutants of `model_checks.mutation` and conformance's own), in lockstep, settled; (2) `walks`
random walks of `length` steps on each configuration of `configurations`, each settled. The first
disagreement stops the run; it is shrunk and reported with its trace.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Sequence
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
from model_checks.conform.lru_lockstep import (
    Broken,
    Disagreement,
    EngineFactory,
    Lockstep,
    shrink,
)
from model_checks.conform.lru_lockstep.cases import Case, cases
from model_checks.conform.lru_lockstep.judged import judged
from model_checks.conform.profiles import ConformProfile
from model_checks.conform.run import Outcome as RunOutcome
from model_checks.conform.run import run_cases
from model_checks.kernel.judged import NotJudged
from model_checks.kernel.verdict_records import (
    CONFORMANCE,
    CONFORMANCE_SAFETY,
    Verdict,
    VerdictRecord,
)
from spec import (
    VARIANTS,
    Config,
    Drift,
    Environment,
    TraceError,
    enabled,
    registry,
)
from spec import run as run_spec
from spec.transitions import Action, Submit


@dataclass(frozen=True)
class Finding:
    """One disagreement, shrunk, and the case it was found in (e.g. "V3 walks D7")."""

    where: str
    disagreement: Disagreement
    config: Config


@dataclass(frozen=True)
class PropertyBroken:
    """A property the implementation broke (its first and shortest trace over the run): the
    case, its configuration, and the lockstep evidence (`Broken`)."""

    where: str
    config: Config
    broken: Broken


@dataclass
class Outcome(RunOutcome[Finding]):
    """What a run found (`conform.run.Outcome`), and what the LRU design's runs showed
    besides: the properties the implementation broke, the spec's actions and guards the
    steps reached, the choices it made, its requests naming one identity twice, and its
    rejections through its own end-to-end call."""

    broken: dict[tuple[str, str], PropertyBroken] = field(default_factory=dict)
    """(variant, property) -> the shortest trace on which the implementation broke it."""
    actions: Counter[str] = field(default_factory=Counter)
    """Spec action name -> how many lockstep steps took it (the runs' coverage)."""
    guards: Counter[str] = field(default_factory=Counter)
    """Spec action name -> in how many of the runs' spec states its guard held (some
    instance of it was enabled): the guards the runs reached, taken or not."""
    choices: Counter[str] = field(default_factory=Counter)
    """Implementation choice the spec allows (`lockstep.choices.NAMES`) -> in how many steps
    the implementation was seen making it (steps where the choices differed)."""
    repeated: int = 0
    """How many submitted requests named one identity twice (`Config.duplicates`)."""
    refusals: int = 0
    """How many rejections (D2) ran through the front end's own end-to-end call with the
    engine refusing (`adapter.Refuses`), not through `abandon`."""

    @property
    def failure(self) -> Disagreement | None:
        return self.findings[0].disagreement if self.findings else None

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
        A property conformance does not judge (`lru_lockstep.judged`) is recorded as
        unknown, with the reason, never as holding."""
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


@dataclass(frozen=True)
class ConformRun:
    """What a conformance run checks and how: `variants` (None: every one the adapter
    supports); `engine_factory` (None: the adapter's engine); `seed` of the generated runs;
    `shrink_failure`: a generated case's disagreement gets a deletion pass after Hypothesis's
    shrinking; `keep_going`: a disagreement stops only its case, not the run; `environment`
    (None: every drift source): the deployment whose drift events and configurations drive
    the implementation."""

    variants: tuple[str, ...] | None = None
    engine_factory: EngineFactory | None = None
    seed: int = 0
    shrink_failure: bool = True
    keep_going: bool = False
    environment: frozenset[Drift] | None = None


def conform(adapter: Adapter, profile: ConformProfile, run: ConformRun = ConformRun()) -> Outcome:
    """Run the profile's checks on `adapter`, as `run` says. A variant the adapter does not
    support is listed as not checked. The first disagreement stops the run (`keep_going`:
    the case, and the run goes on with the next case); a `HarnessFailure` always stops it.
    `environment` (None: every drift source) drives the implementation only through that
    deployment's drift events and configurations: scenarios whose environment lies inside
    it, and the generated runs of `configurations(..., environment)`."""
    outcome = Outcome(adapter.name)
    by_name = {variant.name: variant for variant in VARIANTS}

    def variant_cases(name: str) -> Iterator[Case]:
        served = _offers_serve(adapter, name)
        return cases(by_name[name], profile, run.seed, run.environment, served)

    chosen = [v for v in by_name if run.variants is None or v in run.variants]
    run_cases(outcome, chosen, lambda name: supports(adapter, name), variant_cases,
              lambda found, case: _run_case(found, adapter, run, case), run.keep_going)
    return outcome


def _offers_serve(adapter: Adapter, variant: str) -> bool:
    """Whether the adapter's front end offers its own end-to-end call (`EndToEnd`)."""
    setup = Setup(2, variant, 1, codec.process_media)
    return isinstance(build_front_end(adapter, setup, 0), EndToEnd)


@dataclass
class _Tally:
    """What one case's finished lockstep runs showed: the steps they took, and per property
    the length of the first spec trace that breaks it (None: none did); each run's broken
    properties go to `outcome` as they come (`Outcome.note_broken`)."""

    where: str
    config: Config
    outcome: Outcome
    steps: int = 0
    verdicts: dict[str, int | None] = field(
        default_factory=lambda: {p.id: None for p in registry()})

    def take(self, run: Lockstep) -> None:
        """The case's sink: one finished run."""
        self.steps += len(run.actions)
        self.outcome.actions.update(type(a).__name__ for a in run.actions)
        self.outcome.repeated += sum(1 for a in run.actions if names_an_identity_twice(a))
        self.outcome.guards.update(guards_held(self.config, run.actions))
        self.outcome.choices.update(run.choices)
        self.outcome.refusals += run.impl.refusals
        _spec_verdicts(run, self.verdicts)
        self.outcome.note_broken(self.where, self.config, run.broken)


def names_an_identity_twice(action: Action) -> bool:
    """A submitted request that names one identity twice."""
    if not isinstance(action, Submit):
        return False
    identities = [item.identity for item in action.items]
    return len(set(identities)) < len(identities)


def guards_held(config: Config, actions: Sequence[Action]) -> Counter[str]:
    """Per spec action name, the states of the spec's run of `actions` in which its guard
    held (an instance of it was enabled); a prefix the spec cannot take counts as far as it
    goes."""
    held: Counter[str] = Counter()
    try:
        trace = run_spec(config, actions)
    except TraceError:
        return held
    for state in trace.states():
        held.update({type(a).__name__ for a in enabled(config, state)})
    return held


def _run_case(outcome: Outcome, adapter: Adapter, run: ConformRun, case: Case) -> bool:
    """Run one case into `outcome` (its steps, findings and records); False if a harness
    failure stopped it."""
    t0 = time.perf_counter()
    tally = _Tally(f"{case.variant.name} {case.label}", case.config, outcome)
    failure = _drive(adapter, run, case, tally)
    outcome.steps += tally.steps
    outcome.records += _records(adapter.name, case, tally, time.perf_counter() - t0,
                                failure, outcome.harness)
    return outcome.harness is None


def _drive(adapter: Adapter, run: ConformRun, case: Case, tally: _Tally) -> Disagreement | None:
    """Run `case`, its finished runs into `tally`; its disagreement (shrunk, for a scripted
    case with `shrink_failure`) is returned and added to the outcome's findings; a harness
    failure is noted in the outcome."""
    outcome, where, config = tally.outcome, tally.where, tally.config
    try:
        case.run(adapter, run.engine_factory, tally.take)
    except Disagreement as found:
        if case.scripted:
            tally.steps += len(found.actions)
        outcome.note_broken(where, config, found.broken)
        try:
            if run.shrink_failure:  # generated: after Hypothesis's shrinking, a deletion pass
                found = shrink(config, adapter, found, engine_factory=run.engine_factory)
                outcome.note_broken(where, config, found.broken)
        except HarnessFailure as error:
            outcome.harness = f"{where}: {error}"
        outcome.findings.append(Finding(where, found, config))
        return found
    except HarnessFailure as error:
        outcome.harness = f"{where}: {error}"
    return None


def _environment(config: Config) -> tuple[str, ...]:
    return Environment.of(config.environment).sources


def _spec_verdicts(run: Lockstep, verdicts: dict[str, int | None]) -> None:
    trace = run.trace()
    for prop in registry():
        if verdicts[prop.id] is None and prop.check_trace(trace) is not None:
            verdicts[prop.id] = len(trace.steps)


def _records(adapter: str, case: Case, tally: _Tally, seconds: float,
             failure: Disagreement | None, harness: str | None) -> list[VerdictRecord]:
    """The case's records: the lockstep run's (unknown where a harness failure stopped it),
    and (without a disagreement) one per property with the first length at which the spec's
    traces broke it."""
    env = _environment(case.config)

    def record(prop: str, verdict: Verdict, length: int | None, said: str) -> VerdictRecord:
        return VerdictRecord(CONFORMANCE.record, case.variant.name, env, prop, verdict,
                             tally.steps, "steps", seconds, counterexample_length=length,
                             detail=f"{adapter}, {case.label}{said}")

    if harness is not None:
        return [record("lockstep", Verdict.UNKNOWN, None, f": harness failure: {harness}")]
    if failure is not None:
        return [record("lockstep", Verdict.COUNTEREXAMPLE, len(failure.actions), f": {failure}")]
    agreed = "; the implementation agreed at every step"
    return [record("lockstep", Verdict.HOLDS, None, ""), *(
        record(prop, Verdict.HOLDS if length is None else Verdict.COUNTEREXAMPLE, length, agreed)
        for prop, length in tally.verdicts.items())]
