"""One checker stack over the `Design` interface: no checker module specific to one design.

A checker module (of `CHECKERS`: the explorer, the lattice, the Hypothesis machine, the
lockstep conformance, the scenario suite, and the commands that serve them) is specific to a
design where it reads that design's own spec, directly or through another module of
`model_checks/`: the LRU design's (the modules of `spec/` outside `spec/designs/` and the
drift catalogue, or `spec.designs.lru_design`), or another design's package under
`spec/designs/`. The design-generic ones read only `spec.designs`' interface and registry,
the drift catalogue (`spec.drift`) and what composes designs. Z3 encodings stay per design
(`Z3_ENCODINGS`). Found on the modules' syntax trees, imports inside functions included.

Every design is searched by one explorer (`explore/graph.py` through a design's `Moves`,
the LRU design's reductions declared per design in `explore/search_core.py` over its package
`explore/lru_reductions/`), in one process or over a cluster, and judged through one
interface (`explore/judging.py`: the LRU design's judge declared per design in
`explore/lru_judging/`); every design's implementations are checked by the one lockstep
driver (`conform/design_lockstep.py`) through the design's binding (the LRU design's,
`conform/lru_lockstep/`, declares the driver's optional capabilities and its run as a
`Session` that the one `run_script` follows scripts and replays on), its generated runs by
the one Hypothesis lockstep machine (`conform/machine.py`, over a binding's run and the
design's rules), every design by one `conform` command, its runs those the design's entry
in that table declares, its cases taken by the one run loop (`conform/run.py`). What is
one design's own (its matrix cells' searches, its conformance cases, corpus, reports and
trace files, its adapter interface) is a declaration in `PER_DESIGN`, with its reason, read
through the tables above. `SPECIFIC` lists the checker modules still specific to one design
beside those: none. The test fails on a module that is specific and not listed (a new
design-specific checker) and on one listed that is no longer specific, or gone (take it off
the list).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

import spec.drift

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "model_checks"
CHECKERS = ("designs", "explore", "simulate", "conform", "scenarios", "explore_command.py",
            "conform_command.py")
"""The checker packages and command modules, under model_checks/."""

GENERIC = frozenset({"spec.designs", "spec.designs.base", "spec.designs.registry",
                     "spec.designs.compose", "spec.drift", "spec.values"})
"""The spec modules every design shares: the interface, the registry, composition, the drift
catalogue."""
DESIGNS_PACKAGE = {"shm": "shm", "encoder": "encoder", "paths": "lru+encoder",
                   "lru_design": "lru"}
"""`spec.designs.X` -> the design it declares."""
BUILT_IN = {"LRU": "lru", "SHM": "shm", "ENCODER": "encoder",
            "PROCESSOR_THEN_ENCODER": "lru+encoder"}
"""A design value imported by name from `spec.designs`."""

SHARED_NAMES = {"spec.config": frozenset({"Content", "InvalidConfiguration"}),
                "spec.transitions": frozenset({"InvalidAction"})}
"""The spec's words every design uses (its designs import them too): a content, a refused
configuration, an action not enabled."""

LRU_LOCKSTEP = ("__init__", "calls", "cases", "choices", "command", "corpus",
                "disagreement", "driver", "implementation", "judged", "monitors",
                "notation", "observer", "properties", "report", "run", "runs",
                "trace_files", "unchecked", "views", "weakness")
"""The modules of the LRU design's lockstep binding (`conform/lru_lockstep/`)."""

LRU_JUDGING = ("__init__", "declaration", "early_stop", "judge", "liveness", "monitors",
               "monotone", "product", "slot_fairness", "state_checks", "reduction/__init__",
               "reduction/footprint", "reduction/judging", "reduction/rules",
               "reduction/stubborn")
"""The modules of the LRU design's judging (`explore/lru_judging/`)."""

LRU_REDUCTIONS = ("__init__", "canonical", "forgetting", "lazy_media", "slots", "symmetry")
"""The modules of the LRU design's state reductions (`explore/lru_reductions/`)."""

LRU_BINDING = ("conform/adapter.py", "conform/codec.py", "conform/api_page.py",
               "conform/reference_adapter.py", "conform/reference_items.py",
               "conform/async_adapter.py", "conform/remote.py",
               "conform/two_processes.py")
"""The LRU design's implementation interface and what binds an implementation to it, under the
public names adapters are written against (`model_checks.conform.adapter`,
`model_checks.conform.reference_adapter:factory`): read by per-design modules and outside the
checkers (its history checks, its mutants, the vLLM adapters, the docs), never by a
design-generic checker (`generic_readers`)."""

PER_DESIGN = frozenset({"designs/shm_proofs.py", "designs/shm_restricted.py",
                        "designs/encoder_proofs.py", "designs/path_witnesses.py",
                        "designs/evidence.py", "explore/murphi.py", "explore/murphi_run.py",
                        "explore/search_core.py",
                        *(f"explore/lru_reductions/{m}.py" for m in LRU_REDUCTIONS),
                        "explore/lattice_instance.py",
                        "explore/lattice_lru.py", "explore/lattice_profiles.py",
                        "explore/lru_explore.py", "explore/named_instance.py",
                        "explore/command.py", "explore/cell_tasks.py", "explore/instance.py",
                        "explore/forgetting_agreement.py",
                        "designs/lockstep_bindings.py",
                        "designs/shm_lockstep.py", "designs/shm_views.py", *LRU_BINDING,
                        *(f"conform/lru_lockstep/{m}.py" for m in LRU_LOCKSTEP),
                        "simulate/lru_rules.py", "simulate/lru_matrix.py",
                        "simulate/witnesses.py", "scenarios/base.py", "scenarios/catalog.py",
                        *(f"explore/lru_judging/{m}.py" for m in LRU_JUDGING)})
"""Per design by nature, as Z3 encodings are: a design's all-instance proofs (its state
encoded for Z3, or its answers derived from another design's), its translation for another
checker (the LRU design as a Murphi model run by Rumur), its explicit witnesses, declared
per design in `designs/evidence.py`, the one table the generic lattice reads, and a design's
reductions: `explore/search_core.py` declares the LRU design's (processing renaming,
identity symmetry, forgetting, slots) as the `Moves` the one explorer (`explore/graph.py`)
searches through, and `moves_for` is the one table of them (every other design is searched
through `explore/moves.DesignMoves`, without reductions), its reductions themselves in
`explore/lru_reductions/` (`canonical`: processing renaming; `symmetry`: identity symmetry and
its renamings undone along a path; `forgetting`: the key with ended requests forgotten;
`slots`: that key with the live requests' slots renumbered, and the rid maps that undo it;
`lazy_media`: a request's media flags chosen where P0 first reads them),
each a statement about the LRU design's own state, as a Z3 encoding is, which a search reaches
only through `moves_for` (its table in `TABLES`);
and a design's lattice:
`explore/lattice_instance.py` states the LRU design's instance family and ladder and
`explore/lattice_lru.py` declares, over them, the `LatticeCommandDesign` the one lattice
search (`explore/lattice.py`), its report and its command (`explore/lattice_command.py`)
read: how one environment climbs the ladder, what holds before exploring, the request the
options describe, the design's all-instance proofs and the properties they decide
(`explore/every_instance.py` decides environments over any design's), other checkers' breaks as
it replays them and its own (`explore/evidence.py` gathers them for any design), and how a
witness is checked before it is written; `explore/lattice_profiles.py` the ladders it climbs per
profile, as other designs declare their instances and rungs in `spec/designs/`; and a design's
searches of its own beside the one search of its instances, for the one `explore` command
(`explore_command`, reading `explore/design_explorer.DesignExplorer`): `explore/lru_explore.py`
declares the LRU design's (its matrix cells searched and judged, the instance a user names
searched as one cell, its lattice) and `explorer_for` is the one table of them, over its cells'
search (`explore/command.py`: its options, profiles, cells' table and their comparison with its
expected matrix; `explore/cell_tasks.py`: a cell's instances decided largest first by its judge,
its verdict records and traces), and `explore/named_instance.py` states the instances a user
names in the LRU design's keys (its family's bounds and sizes), as `lattice_instance.py` states
its ladder and `explore/instance.py` the instances its cells are searched in (the matrix's cut
per cell, described as its records quote them) and how its counterexamples are replayed for the
cross-check; and `explore/forgetting_agreement.py` checks the LRU design's forgetting reductions
sound (one instance searched with and without them, both judged by its judge, the verdicts
compared), a statement about its reductions as they are; and a design's lockstep binding,
declared per design in `designs/lockstep_bindings.py`, the one table the one lockstep driver
(`conform/design_lockstep.py`) and the one conform command (`conform_command.py`, `--design
NAME`, default lru) read: the design's runs and the options they read (the LRU design's entry,
its cases and report, taken by the one run loop, `conform/run.py`, as
`conform/lru_lockstep/command.py` declares them, reached only through the table), how an
implementation of the design is driven and its state viewed in the design's terms (the
shared-memory design's: its adapter interface and observations in `designs/shm_views.py`, its
engine harness and the observations' differences in `designs/shm_lockstep.py`), as a Z3 encoding
states a design's state in Z3's terms; the LRU design's binding is its run with the driver's
optional capabilities (`design_lockstep.Stepping` and `Settling`, taken by the one `take_step`
and `settle`; its scripts followed by the one `follow`), in `conform/lru_lockstep/`: its adapter
interface driven action by action (`implementation`), both sides' observations and its tag
bijection (`views`), the spec's steps of an implementation step and its choices (`driver`,
`choices`), the properties and L1-L4 judged on the implementation's own observations
(`observer`, `monitors`, `properties`) and how it judges each property of the design (`judged`:
on those observations, or on the spec's trace the implementation matched), its run as the one
`run_script` follows it and its report of a disagreement (`runs`, `disagreement`), both sides'
observations written in the trace notation (`notation`, as another binding's `differences`), its
runs as the one run loop (`conform/run.py`) takes them: its cases per variant, the scenario
corpus, witnesses and generated walks on the configurations it chooses per deployment (`cases`),
what they showed on its state and actions and their verdict records (`run`), its safety verdicts
per property and its inherited weaknesses, read from the project's answers for its variants
(`report`, `weakness`), and its options read as the one command runs its entry (`command`), as
another binding's runs are the one driver's walks of its instances; its runs' scripts (`corpus`:
its scenarios, the spec mutants' witnesses, conformance's own scripts and its committed
witnesses continued and mutated: the design's data, as its scenario suite is), its trace files
(`trace_files`: a failure of its runs written in the key-replicated spec's trace format, with
its full configuration, and `conform --replay` of one, a trace's spec steps grouped into the
binding's implementation steps, as another binding's witness documents are replayed by
`designs/conform.py`) and the optional parts of its adapter interface, with what each leaves
unverified where an adapter lacks it (`unchecked`), a trace in its adapter's calls for the one
emitter (`calls`, as any other design's trace is embedded whole); and the LRU design's
implementation interface itself (`LRU_BINDING`), as `designs/shm_views.py` is the shared-memory
design's: the adapter interface (`conform/adapter.py`), its page in the docs, generated from it
(`conform/api_page.py`), the wire format of its calls (`conform/codec.py`: a spec content as
media, payload tensors and placeholders), an adapter's engine in a second process and the way
into it (`conform/remote.py`, `conform/two_processes.py`), and the reference implementation
bound to it (`conform/reference_adapter.py`, its item-level updates `reference_items.py`, its
asyncio front end `async_adapter.py`); likewise a design's rules for the one Hypothesis machine
(`simulate/machine.py`): `simulate/lru_rules.py` declares the LRU design's (one rule per action
type, requests drawn whole, its trace properties and fair tail) and `rules_for` is the one table
of them (every other design is driven through `simulate/machine.GenericRules`); likewise a
design's expected matrix for the one Hypothesis matrix (`simulate/run.py`,
`simulate/command.py`, reading `simulate/matrix_design.MatrixDesign`): `simulate/lru_matrix.py`
declares the LRU design's (its cells, reasoned from its protocol, the instance a cell is
searched in, its trace file, its mutants, and its explicit witnesses, `simulate/witnesses.py`:
traces of its actions) and `matrix_for` is the one table of them; and a design's hand-written
scenario suite for the one runner (`scenarios/run.py`, reading `ScenarioSuite`):
`scenarios/catalog.py` declares the LRU design's (`scenarios/base.py`: an LRU scenario, a script
of its actions on its configurations) and `suite_for` is the one table of them; and a design's
judging of a searched instance (`explore/judging.Judging`, read by the one-instance search of
any design, `explore/design_search.py`): `explore/lru_judging/` declares the LRU design's
(`declaration`; its judge of the registry's properties and lemmas on a graph, `judge`, with the
state properties checked as the search numbers states, `state_checks`, L1-L3 by monitors in
product with the graph, `monitors` and `product`, L4 by stuck states and fair lassos,
`liveness`, the properties that can stop a search at their break, `early_stop`, the lattice's
monotonicity lemma on a run, `monotone`, and its partial-order reduction with the judging on the
reduced graph, `reduction/`) and `judging.judging_for` is the one table of them (every other
design is judged through `judging.DesignJudging`, its properties checked on every transition).

A per-design module is behind its interface: of the generic modules, only its table reads
it (`TABLES`); the other modules that import it are per design too, or specific to the same
design and listed in `SPECIFIC` (the rest of that design's own stack, which only shrinks), or
the design's own tools outside the checkers (`OWN_TOOLS`, with why)."""

TABLES = {"explore/lru_judging/": ("explore/judging.py", "lru"),
          "explore/lru_reductions/": ("explore/search_core.py", "lru"),
          "conform/lru_lockstep/": ("designs/lockstep_bindings.py", "lru")}
"""A per-design package -> the one generic module that may import it (its table), and the
design it declares."""

OWN_TOOLS = {"conform/lru_lockstep/": frozenset({
    "history/run.py", "history/steps.py", "doctor/answer.py", "mutant_run/killmatrix.py",
    "adapters/vllm_emit.py"})}
"""A per-design package -> the modules outside the checkers (`CHECKERS`) that read it directly:
the design's own tools, not the one stack's. The LRU design's lockstep binding is read so by
its history checks (`history/`: the choices a step of a history may take, the optional parts
of its adapter interface an adapter lacks), the doctor's answers for its variants
(`doctor/answer.py`: its inherited weaknesses), the kill matrix of its reference's mutants
(`mutant_run/killmatrix.py`: its conformance runs) and the vLLM adapter's emitter
(`adapters/vllm_emit.py`: a trace in its adapter's calls). Each reads the binding's own API,
which its table (`designs/lockstep_bindings.py`: a design's entry, the runs the one `conform`
command takes) does not declare and no other design has: reaching it through the table would
put one design's API into every design's entry. A checker module is never among them
(`test_a_designs_own_tools_are_outside_the_checkers`)."""

SPECIFIC: dict[str, frozenset[str]] = {"lru": frozenset()}
"""The checker modules still specific to one design: none. A design's own modules are
declarations in `PER_DESIGN`, each with its reason above, reached through the tables the
generic checkers read; a new module that reads one design's spec and is not declared fails
`test_no_checker_module_is_specific_to_a_design_but_the_known_ones`. The design-generic
witness files are not among them: the one trace format tags the classes each design
declares (`Design.trace_tags`), not the LRU's."""


def _name(path: Path) -> str:
    return str(path.relative_to(PACKAGE)) if path.is_relative_to(PACKAGE) else str(path)


def _module_path(name: str) -> Path | None:
    """The file of `model_checks.X.Y` (a module or a package's `__init__`), if any."""
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.exists():
            return path
    return None


def spec_owners(module: str, names: tuple[str, ...]) -> set[str]:
    """The designs whose own spec `from module import names` reads (empty: generic)."""
    head = module.removeprefix("spec.designs.").partition(".")[0]
    if module.startswith("spec.designs.") and head in DESIGNS_PACKAGE:
        return {DESIGNS_PACKAGE[head]}
    if module == "spec.designs":
        return {BUILT_IN[n] for n in names if n in BUILT_IN}
    if module in GENERIC or not (module == "spec" or module.startswith("spec.")):
        return set()
    if module in SHARED_NAMES and names and set(names) <= SHARED_NAMES[module]:
        return set()
    if module == "spec":  # the package re-exports the drift catalogue and the LRU design
        return {"lru"} if any(n not in dir(spec.drift) for n in names) else set()
    return {"lru"}


def imports(source: str) -> list[tuple[str, tuple[str, ...]]]:
    """Every absolute import of `source` (module, names), inside functions too."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, tuple(a.name for a in node.names)))
            if node.module.startswith("model_checks"):  # a name may be a module
                found += [(f"{node.module}.{a.name}", ()) for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(a.name, ()) for a in node.names]
    return found


@cache
def _direct(path: Path) -> tuple[frozenset[str], tuple[Path, ...]]:
    """The designs the module at `path` reads the spec of itself, and the modules of
    `model_checks/` it imports."""
    designs: set[str] = set()
    reached: list[Path] = []
    for module, names in imports(path.read_text()):
        if module.startswith("model_checks."):
            target = _module_path(module)
            if target is not None and target != path and _name(target) not in PER_DESIGN:
                reached.append(target)
        else:
            designs |= spec_owners(module, names)
    return frozenset(designs), tuple(reached)


def owners(path: Path) -> frozenset[str]:
    """The designs whose own spec the module at `path` reads, directly or through the
    modules of `model_checks/` it imports."""
    found: set[str] = set()
    seen, stack = {path}, [path]
    while stack:
        designs, reached = _direct(stack.pop())
        found |= designs
        for target in reached:
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return frozenset(found)


def checker_modules() -> list[str]:
    paths = [p for c in CHECKERS for p in ([PACKAGE / c] if c.endswith(".py")
                                           else sorted((PACKAGE / c).rglob("*.py")))]
    return [str(p.relative_to(PACKAGE)) for p in paths]


def specific() -> dict[str, set[str]]:
    """Design -> the checker modules specific to it (`PER_DESIGN` aside)."""
    found: dict[str, set[str]] = {}
    for name in checker_modules():
        if name in PER_DESIGN:
            continue
        for design in owners(PACKAGE / name):
            found.setdefault(design, set()).add(name)
    return found


def test_no_checker_module_is_specific_to_a_design_but_the_known_ones() -> None:
    found = specific()
    new = {d: sorted(set(m) - SPECIFIC.get(d, frozenset())) for d, m in found.items()}
    gone = {d: sorted(m - set(found.get(d, ()))) for d, m in SPECIFIC.items()}
    assert not any(new.values()), (
        f"checker modules specific to one design: {new}; a checker reads the `Design` "
        "interface (spec/designs/base.py), a design's Z3 encoding or evidence goes in "
        "PER_DESIGN")
    assert not any(gone.values()), f"no longer specific (take them off SPECIFIC): {gone}"


def test_the_one_explorer_and_the_design_generic_lattice_read_only_the_interface() -> None:
    found = specific()
    for name in ("explore/graph.py", "explore/moves.py", "explore/exploration.py",
                 "explore/judging.py", "explore/design_search.py",
                 "explore/lattice.py", "explore/lattice_report.py",
                 "explore/lattice_command.py", "designs/lattice.py",
                 "simulate/machine.py", "simulate/designs.py"):
        assert not any(name in modules for modules in found.values()), name


def breaches(sources: list[tuple[str, str]]) -> list[str]:
    """Each import of a per-design package's module (`TABLES`) by a module of `sources`
    ((name under model_checks/, source)) that may not read it: neither its table, nor per
    design, nor specific to the design the package declares, nor one of the design's own
    tools outside the checkers (`OWN_TOOLS`)."""
    found = []
    for name, source in sources:
        if name in PER_DESIGN:
            continue
        for module, _ in imports(source):
            target = _module_path(module) if module.startswith("model_checks.") else None
            imported = "" if target is None else _name(target)
            for package, (table, design) in TABLES.items():
                if (imported.startswith(package) and name != table
                        and name not in SPECIFIC.get(design, frozenset())
                        and name not in OWN_TOOLS.get(package, frozenset())):
                    found.append(f"{name} imports {imported}")
    return found


def test_a_per_design_package_is_read_by_generic_code_only_through_its_table() -> None:
    sources = [(_name(p), p.read_text()) for p in sorted(PACKAGE.rglob("*.py"))]
    assert not breaches(sources), (
        "generic code reads a design's declaration through its table (TABLES)")


RUNS = "from model_checks.conform.lru_lockstep.run import ConformRun, conform"
"""The LRU design's lockstep runs imported (planted below)."""


def tool_faults(tools: dict[str, frozenset[str]], sources: dict[str, str]) -> list[str]:
    """Each module `tools` lists as a design's own tool (`OWN_TOOLS`) that is a checker
    module (a checker reads the package through its table) or no longer reads the package
    (take it off); `sources`: name under model_checks/ -> source."""
    checkers = set(checker_modules())
    found = []
    for package, names in tools.items():
        for name in sorted(names):
            imported = [_name(t) for m, _ in imports(sources[name])
                        if m.startswith("model_checks.") and (t := _module_path(m)) is not None]
            if name in checkers:
                found.append(f"{name} is a checker module")
            elif not any(i.startswith(package) for i in imported):
                found.append(f"{name} no longer reads {package}")
    return found


def test_a_designs_own_tools_are_outside_the_checkers_and_read_its_package() -> None:
    sources = {name: (PACKAGE / name).read_text() for names in OWN_TOOLS.values()
               for name in names}
    assert not tool_faults(OWN_TOOLS, sources)


def test_the_tools_check_sees_a_checker_and_a_tool_that_reads_no_more() -> None:
    """Planted: a checker module listed as the design's own tool, and a listed tool that no
    longer imports the package."""
    tools = {"conform/lru_lockstep/": frozenset({"conform/emit.py", "doctor/answer.py"})}
    sources = {"conform/emit.py": RUNS, "doctor/answer.py": "from spec import registry\n"}
    assert tool_faults(tools, sources) == ["conform/emit.py is a checker module",
                                           "doctor/answer.py no longer reads conform/lru_lockstep/"]


JUDGE = "def f():\n    from model_checks.explore.lru_judging.judge import judge_all"
CANONICAL = "from model_checks.explore.lru_reductions.canonical import canonical"


@pytest.mark.parametrize(("name", "source", "broken"), [
    ("explore/graph.py", JUDGE, True), ("designs/lattice.py", JUDGE, True),
    ("explore/judging.py", JUDGE, False), ("explore/cell_tasks.py", JUDGE, False),
    ("explore/search_core.py", JUDGE, False),
    ("explore/graph.py", CANONICAL, True), ("explore/design_search.py", CANONICAL, True),
    ("explore/search_core.py", CANONICAL, False),
    ("explore/lru_reductions/slots.py", CANONICAL, False),
    ("explore/graph.py", "from model_checks.explore.search_core import moves_for", False),
    ("conform/design_lockstep.py", RUNS, True), ("conform_command.py", RUNS, True),
    ("doctor/findings.py", RUNS, True), ("designs/lockstep_bindings.py", RUNS, False),
    ("conform/lru_lockstep/cases.py", RUNS, False), ("mutant_run/killmatrix.py", RUNS, False),
])
def test_the_table_check_sees_a_generic_module_reading_a_declaration(
        name: str, source: str, broken: bool) -> None:
    """Planted: the LRU design's judge, one of its reductions or its lockstep runs imported by
    a generic module or by a module outside the checkers that is not one of its own tools (a
    breach), by its table, by a module specific to the LRU design, by a per-design one or by
    one of its own tools (none); a generic module going through the table is no breach."""
    assert bool(breaches([(name, source)])) is broken, name


@pytest.mark.parametrize(("source", "expected"), [
    ("from spec.state import State", {"lru"}),
    ("from spec import step", {"lru"}),
    ("import spec.machine", {"lru"}),
    ("def f():\n    from spec.designs.shm.state import Handle", {"shm"}),
    ("from spec.designs import SHM", {"shm"}),
    ("from spec.designs.paths import PROCESSOR_THEN_ENCODER", {"lru+encoder"}),
    ("from spec.config import Content, Config", {"lru"}),
    ("from spec import Environment", set()),
    ("from spec.designs.base import Design", set()),
    ("from spec.config import Content, InvalidConfiguration", set()),
    ("from spec.transitions import InvalidAction", set()),
])
def test_the_check_sees_a_design_specific_import(source: str, expected: set[str]) -> None:
    """Planted: each import, in a module of its own, read as the check reads a module."""
    found: set[str] = set()
    for module, names in imports(source):
        found |= spec_owners(module, names)
    assert found == expected, source


def generic_readers(sources: list[tuple[str, str]]) -> list[str]:
    """Each import of the LRU design's binding (`LRU_BINDING`) by a checker module of
    `sources` ((name under model_checks/, source)) that is neither per design nor specific
    to the LRU design: a design-generic checker reading one design's interface."""
    found = []
    for name, source in sources:
        if name in PER_DESIGN or name in SPECIFIC["lru"]:
            continue
        for module, _ in imports(source):
            target = _module_path(module) if module.startswith("model_checks.") else None
            if target is not None and _name(target) in LRU_BINDING:
                found.append(f"{name} imports {_name(target)}")
    return found


def test_no_design_generic_checker_reads_the_lru_designs_binding() -> None:
    sources = [(name, (PACKAGE / name).read_text()) for name in checker_modules()]
    assert not generic_readers(sources), (
        "a design-generic checker reads the LRU design's binding (LRU_BINDING)")


@pytest.mark.parametrize(("name", "broken"), [
    ("conform/design_lockstep.py", True), ("conform/emit.py", True),
    ("conform/lru_lockstep/trace_files.py", False), ("conform/lru_lockstep/views.py", False),
])
def test_the_binding_check_sees_a_generic_checker_reading_it(name: str, broken: bool) -> None:
    """Planted: the LRU design's codec imported by a generic checker (a breach) or by the
    design's own declarations (none)."""
    source = "def f():\n    from model_checks.conform import codec"
    assert bool(generic_readers([(name, source)])) is broken, name
