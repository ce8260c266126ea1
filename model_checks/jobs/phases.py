"""The jobs' phases as typed values: each is a command line of one checker plus what the job
must know about it (what it writes, whether it cross-checks the phases before it), so that
the runner never inspects a command line's words.

`MAIN_JOB` is what a merge decision needs; `NIGHTLY_PARTS` (and `NIGHTLY`, their union in
order) the deep budgets, in parts that each fit one workflow job.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from model_checks.kernel.matrix import ENVIRONMENTS, ROUTER_ENVIRONMENTS
from model_checks.kernel.pair_cells import PAIR_ENVIRONMENTS
from spec import DRIFT_IDS, VARIANTS
from spec.drift import Environment


class Output(enum.Enum):
    """What a phase leaves for the job's records."""

    RECORDS = "verdict records"  # the phase writes verdict records where `--json` says
    LATTICE = "lattice JSON"  # the drift lattice's own JSON (minimal sets), no verdict records
    SCENARIOS = "scenario verdicts"  # run in the job's process, its verdicts made records
    EXPECTED = "a named instance's verdict"  # judged against the project's answer


@dataclass(frozen=True)
class NamedCheck:
    """One property searched on one instance a user could name (`explore --instance`), whose
    verdict the job judges against the project's answer for the variant, environment and
    property (`model_checks.answers`: what the project says, never a table of this job's):
    `jobs.expected`."""

    variant: str
    environment: str
    """As the command line writes it: `D2+D7`, `none`."""
    instance: str
    """`named_instance`'s text: every bound named."""
    property_id: str

    @property
    def argv(self) -> tuple[str, ...]:
        """The search: stopped at the end of the level where the property first breaks
        (`early_stop`), with ended requests forgotten and request slots renumbered (the same
        verdict and shortest counterexample from fewer states)."""
        return ("explore", "--variant", self.variant, "--environment", self.environment,
                "--instance", self.instance, "--property", self.property_id, "--forget-ended",
                "--symmetric-requests")

    def label(self) -> str:
        return f"{self.variant} {self.environment} {self.property_id} on {self.instance}"


@dataclass(frozen=True)
class Phase:
    """One phase of a job: `argv` (the subcommand first), what it writes (`output`), and
    whether it is given the records of the phases before it (`--cross-check`: the explorer
    cross-checks Hypothesis's and Z3's verdicts)."""

    argv: tuple[str, ...]
    output: Output = Output.RECORDS
    cross_check: bool = False
    """Whether it reads the records of the phases before it: it starts once they have all
    ended (`jobs.schedule`); every other phase may start at once."""
    named: NamedCheck | None = None
    """With `Output.EXPECTED`: the instance, property and variant the phase searches."""
    compiled: bool = False
    """Whether the phase runs on the compiled build where it is fresh (`jobs.run`): a named
    instance's search, and the main job's sweeps whose records on the build were compared
    equal with the interpreted ones (`benchmarks/compare_records.py`). A sweep's tasks and
    results cross processes by pickle, which the spec's values survive on the build too
    (`tests/spec/test_spec_pickle.py`)."""

    @property
    def command(self) -> str:
        """The subcommand."""
        return self.argv[0]


def checker(*argv: str, compiled: bool = False) -> Phase:
    """A checker that writes verdict records (`simulate`, `prove`, `conform`, `mutants`)."""
    return Phase(argv, compiled=compiled)


def explore(*arguments: str, compiled: bool = False) -> Phase:
    """The matrix explorer: verdict records, cross-checked with the phases before it."""
    return Phase(("explore", *arguments), cross_check=True, compiled=compiled)


def lattice(*arguments: str) -> Phase:
    """The drift lattice (`explore --lattice`): its own JSON, no cross-check."""
    return Phase(("explore", "--lattice", *arguments), Output.LATTICE)


def expected(variant: str, environment: str, instance: str, prop: str) -> Phase:
    """A named instance's search for one property, judged against the project's answer: the
    phase passes when it finds the break the answer names (or the hold it states), and fails
    when it does not (`jobs.expected`). Its records stay out of the matrix's summary (they
    are of another instance than the matrix's); its verdict has a line of its own."""
    check = NamedCheck(variant, environment, instance, prop)
    return Phase(check.argv, Output.EXPECTED, named=check, compiled=True)


SCENARIOS = Phase(("scenarios",), Output.SCENARIOS)
"""The scenario suite, every job's first phase."""

REFERENCE_ADAPTER = "model_checks.conform.reference_adapter:factory"

PROVE_NIGHTLY_ONLY: tuple[tuple[str, ...], ...] = (("D5",), ("D5", "D7"), ("D6",), DRIFT_IDS)
"""The environments whose Z3 groups run in the nightly job only: two front ends (D5, D5+D7),
two interleaved items (D6) and every source at once, together the costliest half of the main
job's `prove` CPU (every source alone: a third of it, its shortest counterexamples at depth 8
and V3's certificate over every action). In the main job Hypothesis and the explorer still
judge these cells, Z3 still encodes two front ends, two items and most sources together in the
combined environments it runs, the test suite still checks V3's certificate under every
source (`tests/smt/test_smt_invariant.py`); the docs snapshot keeps their Z3 records across a
refresh from a main job (`docs.snapshot.carried_over`)."""

PROVE_MAIN_ENVIRONMENTS: tuple[str, ...] = tuple(
    argument
    for env in (*ENVIRONMENTS, *ROUTER_ENVIRONMENTS) if env not in PROVE_NIGHTLY_ONLY
    for argument in ("--environment", Environment.of(env).text)
)
"""`prove`'s selection in the main job: every main-matrix environment but PROVE_NIGHTLY_ONLY."""

DEEP_BREAKS: tuple[Phase, ...] = (
    expected("V2", "D2+D7", "identities=3,requests=4,unfinished=2,items=1,retries=2,budget=2",
             "S1"),
    expected("V3", "D2", "identities=3,requests=4,unfinished=2,items=2,retries=2,budget=2",
             "L3"),
)
"""Breaks four requests deep, on instances the user could name (`explore --instance`), that
the matrix's own searches (two requests in the ci profile) cannot reach: S1 of V2 under D2+D7
and L3 of V3 under D2, each found at the depth of its shortest counterexample. Each is
expected to break because the project's answer says so (`model_checks.answers`), and its
phase fails where the search does not find the break (`jobs.expected`)."""

MAIN_JOB: tuple[Phase, ...] = (
    checker("simulate", "--profile", "ci", "--no-mutants", compiled=True),
    checker("prove", *PROVE_MAIN_ENVIRONMENTS),
    explore("--profile", "ci", compiled=True),
    *DEEP_BREAKS,
    checker("conform", "--adapter", REFERENCE_ADAPTER, "--processes", "1"),
    lattice("--check"),
)
"""The main job after the scenario suite: every checker at its CI budget, numbered in this order
(the summary's), run side by side (`jobs.schedule`: the matrix's explorer after the sweeps
it cross-checks); what a merge decision needs. After the matrix's explorer, the breaks of
DEEP_BREAKS on their named instances. Last, the other designs' committed answers re-derived
(`explore --lattice --check`: every single-source search at the base rung and the all-instance
proofs).
Left to the nightly job (NIGHTLY) or to the test suite, where they run already: Z3's groups of
PROVE_NIGHTLY_ONLY, the spec mutants' Hypothesis cells (`tests/simulate/test_sim_mutants.py`
at the ci profile; nightly: `simulate --profile nightly` and `mutants`) and conformance across
two processes (`tests/conform/test_conform_remote.py`; nightly: `conform --processes 2`).
`prove` keeps its default depth 6 here: at depth 4 a group with a deep counterexample can cost
more, not less (one incremental solver asked other assumptions), while the small groups save
under half a second each. The matrix's explorer and Hypothesis's sweep run on the compiled
build where it is fresh (`Phase.compiled`), as the named instances' searches do."""

PAIR_ENV_ARGUMENTS: tuple[str, ...] = tuple(
    argument for env in PAIR_ENVIRONMENTS
    for argument in ("--environment", Environment.of(env).text)
)
"""`explore`'s selection of the pair cells (explore takes environments, not `--cells`)."""

PAIRS: tuple[Phase, ...] = (
    checker("simulate", "--profile", "ci", "--cells", "pairs", "--no-mutants"),
    checker("prove", "--cells", "pairs"),
    explore("--profile", "ci", *PAIR_ENV_ARGUMENTS),
)
"""The pair cells of the expected matrix (`pair_cells.PAIR_EXPECTED`) through every checker at the
main job's budgets; too long for the main job, so the nightly job runs them. explore judges
their expectations only through the nightly's summary (`contradiction_count` over every
cell), so the nightly fails on any contradiction the summary marks."""

LATTICE_EVIDENCE: tuple[str, ...] = ("docs/results/records.json.gz", "docs/results/wide-family",
                                     "docs/results/parametric-witnesses",
                                     "docs/results/lattice-nightly",
                                     "docs/results/lattice-single-source",
                                     "docs/results/lattice-duplicates")
"""The committed breaks the lattice merges as evidence: the docs snapshot's replayed records,
the wide instance family's traces, the hand-built runs of the all-instance proofs' failing
steps (written by tests/smt/parametric_witness.py), the long runs' witnesses (`docs.lattice_nightly`
`LONG_RUNS`: larger rungs than the ci profile's), and the witnesses of the ci ladder with
requests that name one identity twice (`explore --lattice --duplicates`, per variant: every
environment of up to two sources where `docs/results/lattice-duplicates-outcomes.json` has
its outcomes, single sources, `--max-size 1`, elsewhere); the same as the committed lattice
page's command."""

NIGHTLY_PARTS: dict[str, tuple[Phase, ...]] = {
    **{
        f"simulate-{variant.name}": (
            checker("simulate", "--profile", "nightly", "--only", f"{variant.name}_"),
        )
        for variant in VARIANTS
    },
    "simulate-mutants": (checker("simulate", "--profile", "nightly", "--only", "mutant"),),
    "prove-explore": (
        checker("prove", "--depth", "8", "--search-depth", "14", "--rlimit", "1200000000",
                "--mirror", "all", "--rlimit-certificate", "1200000000"),
        explore("--profile", "nightly"),
    ),
    "lattice": (lattice("--profile", "nightly", "--parametric",
                        *(argument for evidence in LATTICE_EVIDENCE
                          for argument in ("--evidence", evidence))),),
    "pairs": PAIRS,
    "conform": (
        checker("conform", "--adapter", REFERENCE_ADAPTER, "--processes", "1",
                "--profile", "nightly"),
        checker("conform", "--adapter", REFERENCE_ADAPTER, "--processes", "2",
                "--profile", "nightly"),
    ),
    "mutants": (checker("mutants", "--processes", "2"),),
}
"""The nightly job in parts that each fit one 6-hour workflow job on a 2-core runner
(`nightly --part NAME`; the ready workflow runs one job per part, side by side). Hypothesis's
nightly profile is split by variant (`--only V0_` selects every V0 cell: labels are
`V0_D1+D7`, and the empty environment's is `V0_none`: `cells.cell_matches`) and the spec
mutants' cells
(`--only mutant`): together they are exactly `simulate --profile nightly`'s cells. The
nightly `prove` also tries the mirror certificate on two-item encodings (`--mirror all`,
hence a certificate limit of 1.2 billion units). `prove` comes before `explore` in one part
because explore cross-checks the Z3 records of the phases before it in the same run."""

NIGHTLY: tuple[Phase, ...] = tuple(
    phase for phases in NIGHTLY_PARTS.values() for phase in phases
)
"""The whole nightly job (`nightly` without `--part`), every part in order: every checker at
its deep budget (Hypothesis's nightly profile, Z3 two steps deeper than the main job and
counterexamples to 14 steps, the explorer's nightly profile: 3 requests, 2M states per graph,
conformance's nightly profile), the drift lattice at its nightly profile (environments of up
to 3 drift sources from 2 to 3 requests, pairs with D7 on to 4, every other checker's
replayed breaks of the docs snapshot and Z3's all-instance proof merged), the pair cells
of the expected matrix at the main job's budgets (`PAIRS`), and every mutant through every
checker (Z3's deep searches included)."""

LONG_ARGUMENTS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("--adapter", REFERENCE_ADAPTER), "(reference)"),
    (PAIR_ENV_ARGUMENTS, "(every pair cell)"),
    (PROVE_MAIN_ENVIRONMENTS,
     "(all but " + ", ".join("+".join(e) for e in PROVE_NIGHTLY_ONLY) + ")"),
)
"""Argument runs too long for a progress line, and the words a phase's label uses instead."""
