"""`conform --design NAME --adapter MODULE:FACTORY`: the one driver's runs, for a design whose
entry in the one table (`lockstep_bindings`) is a `design_lockstep.Binding` (the
shared-memory design's), as the one conform command (`model_checks.conform_command`) runs them
once it has refused the options they do not read (`designs.conformance.refused`).

- Without `--replay`: seeded random runs of `--steps` steps in each environment (the one
  `--environment` names; else none, each source alone, and every source together), then
  every committed witness (`witness_files.committed`) in lockstep. Exit 0 when every step
  agreed, 1 at the first disagreement (printed with both observations, and the trace as a
  witness document to replay) and where an environment's runs took no step (NOTHING
  CHECKED: never a pass).
- With `--replay FILE` (a witness document): its actions in lockstep, then its property
  judged on the implementation after the last step: exit 4 REPRODUCED where it breaks
  there, 0 NOT REPRODUCED, 1 on a disagreement, 5 NOT FOLLOWED where a step cannot be
  driven. `--emit-pytest DIR` writes the replay (or a disagreement's trace) as a pytest
  file.

Exit 2 for a usage error (one line on stderr), 3 for a harness failure (the adapter raised
where it should have answered).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from model_checks.conform.design_lockstep import (
    Binding,
    Disagreement,
    LockstepAdapter,
    Unmappable,
    replay,
    walk,
)
from model_checks.conform.design_lockstep import Outcome as Walked
from model_checks.conform.exits import (
    EXIT_FAIL,
    EXIT_NOT_FOLLOWED,
    EXIT_OK,
    EXIT_WEAKNESS,
    HarnessFailure,
)
from model_checks.conform.run import Outcome, final, run_cases
from model_checks.designs.lockstep_bindings import binding_of
from model_checks.designs.witness_files import (
    BadWitness,
    WitnessDocument,
    committed,
    document,
    read,
    witnesses_of,
)
from model_checks.kernel.exits import UsageError
from spec.designs.base import Design
from spec.designs.registry import design_named
from spec.drift import Environment
from spec.transitions import InvalidAction

ROOT = Path(__file__).resolve().parents[2]
"""The repository root (the committed witnesses are under it)."""
DEFAULT_STEPS = 400
"""Lockstep steps per environment when `--steps` is not given."""

T = TypeVar("T")
Ran = Walked[Disagreement, list[str]]
"""A lockstep run of the design, as the one driver reports it."""


def run(args: argparse.Namespace) -> int:
    """The one driver's runs for `args.design` (its entry a `Binding`): the exit code; a
    usage error raises `UsageError`, a harness failure `HarnessFailure` (the command reports
    them)."""
    design = design_named(args.design)
    _refuse(args)
    binding = binding_of(design.name)
    if binding is None:
        raise UsageError(f"--design {design.name}: its entry in the table is not a binding of the "
                    f"one driver")
    if args.replay is not None:
        return _replay(args, binding, read_witness(args.replay, design))
    envs = environments(design, args.environment)
    return _conform(args, binding, _adapter(args.adapter, binding), envs)


def _refuse(args: argparse.Namespace) -> None:
    if args.steps is not None and args.steps < 1:
        raise UsageError(f"--steps: got {args.steps}, expected a number of steps >= 1")
    if args.replay is not None and (args.environment is not None or args.steps is not None):
        raise UsageError("--replay runs the witness's own instance as written; --environment and "
                    "--steps cannot apply to it")


def environments(design: Design, chosen: Environment | None) -> list[frozenset[str]]:
    """The environments to check, as LRU conformance does (`lru_lockstep.cases.configurations`): no
    drift, each source of the deployment alone, and all of them together; the deployment is
    `chosen` (`--environment`), else every source of the design."""
    env = Environment.of(s.id for s in design.sources) if chosen is None else chosen
    try:  # a source the design has not is refused with the design's reason
        design.instance(design.variants[0], env.ids)
    except ValueError as error:
        raise UsageError(f"--environment: {error}") from None
    together = [env.ids] if len(env) > 1 else []
    return [frozenset(), *(frozenset({s}) for s in env), *together]


def read_witness(path: Path, design: Design) -> WitnessDocument:
    try:
        found = read(path)
    except OSError as error:
        raise UsageError(f"--replay: cannot read {path}: {error.strerror}") from None
    except BadWitness as error:
        raise UsageError(f"--replay: {error}") from None
    if found.design.name != design.name:
        raise UsageError(f"--replay: {path} is a witness of design {found.design.name!r}, not "
                    f"{design.name!r}")
    return found


def _adapter(path: str, binding: Binding) -> LockstepAdapter:
    """The adapter `MODULE:FACTORY` builds (its module exists: the command checked it); a
    usage error where it does not load."""
    module, _, factory = path.partition(":")
    try:
        built: LockstepAdapter = getattr(importlib.import_module(module), factory)()
    except Exception as error:  # a usage error: one line, no traceback
        raise UsageError(f"--adapter: {type(error).__name__}: {error}") from None
    for method in ("byte_map", "start"):
        if not callable(getattr(built, method, None)):
            raise UsageError(f"--adapter: {path} has no {method}(config) (design "
                        f"{binding.design.name} needs {binding.interface})")
    return built


def guarded(call: Callable[[], T], what: str) -> T:
    """`call()`; `Unmappable` is a usage error, the spec refusing an action a usage error
    (the witness does not replay on the spec), any other exception a harness failure."""
    try:
        return call()
    except Unmappable as error:
        raise UsageError(f"the adapter cannot state this instance in its bytes: {error}") from None
    except InvalidAction as error:
        raise UsageError(f"the trace does not replay on the spec: {error}") from None
    except Exception as error:
        raise HarnessFailure(f"{what}: {type(error).__name__}: {error}") from error


def _conform(args: argparse.Namespace, binding: Binding, adapter: LockstepAdapter,
             envs: list[frozenset[str]]) -> int:
    """The one run loop (`conform.run.run_cases`) over the design's cases: a seeded walk per
    environment, then every committed witness whose environment the run covers."""
    design = binding.design
    print(f"conformance of {adapter.name} to design {design.name} ({design.variants[0]}), "
          f"{args.steps or DEFAULT_STEPS} lockstep steps per environment, seed {args.seed}")
    runs = _Runs(args, binding, adapter)
    outcome: Outcome[_Found] = Outcome(adapter.name)
    if not run_cases(outcome, design.variants[:1], lambda _: True, lambda _: runs.cases(envs),
                     runs.case):
        return EXIT_FAIL
    print(f"  witnesses: {runs.witnesses} committed witness(es) replayed in lockstep, every "
          f"step agreed")
    code, line = final(outcome)
    print(line)
    return code


@dataclass(frozen=True)
class _Found:
    """Where a run of the design disagreed."""

    where: str


@dataclass
class _Runs:
    """The design's cases, each run in lockstep (a byte map printed where it differs from
    the one printed last), and how many witnesses agreed."""

    args: argparse.Namespace
    binding: Binding
    adapter: LockstepAdapter
    printed: list[str] = field(default_factory=list)
    witnesses: int = 0

    def cases(self, envs: list[frozenset[str]]) -> Iterator[frozenset[str] | WitnessDocument]:
        """The environments' walks, then every committed witness of the design whose
        environment the run covers."""
        design = self.binding.design
        yield from envs
        found = [read_witness(path, design) for path in committed(ROOT, witnesses_of(design.name))]
        yield from (w for w in found if w.environment <= frozenset().union(*envs))

    def case(self, outcome: Outcome[_Found], case: frozenset[str] | WitnessDocument) -> bool:
        """One case into `outcome`; whether the run goes on."""
        if isinstance(case, WitnessDocument):
            self.witnesses += 1
            ran = guarded(lambda: replay(self.binding, self.adapter, case.config(),
                                         case.actions), case.label())
            return self._agrees(outcome, ran, case.environment, f"the witness of {case.label()}")
        design, adapter, label = self.binding.design, self.adapter, Environment.of(case).text
        config, seed = design.instance(design.variants[0], case), f"{self.args.seed}:{label}"
        lines = guarded(lambda: adapter.byte_map(config), "byte_map")
        if lines != self.printed:
            print("\n".join(f"  {line}" for line in lines))
            self.printed[:] = lines
        ran = guarded(lambda: walk(self.binding, adapter, config,
                                   self.args.steps or DEFAULT_STEPS, seed), "a lockstep run")
        if not self._agrees(outcome, ran, case, f"environment {label} (seed {seed!r})"):
            return False
        if ran.steps == 0:
            print(f"  environment {label}: 0 lockstep steps (the spec enables nothing in its "
                  f"initial state); this is not a pass")
            print(f"RESULT: NOTHING CHECKED (exit {EXIT_FAIL})")
            return False
        print(f"  environment {label}: {ran.steps} lockstep steps, every step agreed")
        return True

    def _agrees(self, outcome: Outcome[_Found], ran: Ran, env: frozenset[str],
                where: str) -> bool:
        """`ran`'s steps into `outcome`; a disagreement or a step not driven printed (and
        emitted), and False."""
        outcome.steps += ran.steps
        if ran.disagreement is None and ran.not_driven is None:
            return True
        design = self.binding.design
        trace = document(WitnessDocument(design, design.variants[0], env, None,
                                         tuple(ran.actions)))
        if ran.disagreement is not None:
            print(f"DISAGREEMENT in {where}, at step {ran.disagreement.step}:")
            print(ran.disagreement.report())
        else:
            print(f"NOT FOLLOWED in {where}: {ran.not_driven}")
        print(f"  the trace, to replay with --replay FILE:\n  {json.dumps(trace)}")
        if self.args.emit_pytest is not None:
            print(emit(self.args.emit_pytest, self.args.adapter, trace,
                       f"a lockstep run in {where}"))
        outcome.findings.append(_Found(where))
        print(final(outcome, spec=f"design {design.name}'s spec")[1])
        return False


def _replay(args: argparse.Namespace, binding: Binding, found: WitnessDocument) -> int:
    design = binding.design
    adapter = _adapter(args.adapter, binding)
    config = found.config()
    print(f"replay of {args.replay} ({found.label()}, {len(found.actions)} steps) against "
          f"{adapter.name}")
    print("\n".join(f"  {line}" for line in guarded(lambda: adapter.byte_map(config),
                                                    "byte_map")))
    wanted = [found.property_id] if found.property_id else []
    outcome = guarded(lambda: replay(binding, adapter, config, found.actions, wanted),
                      "the replay")
    for number, action in enumerate(outcome.actions[:outcome.steps], start=1):
        print(f"  step {number}: {json.dumps(design.action_to_json(action))}")
    if args.emit_pytest is not None:
        trace = document(found)
        print(emit(args.emit_pytest, args.adapter, trace, f"the replay of {args.replay}"))
    return _replay_verdict(found, outcome)


def _replay_verdict(found: WitnessDocument, outcome: Ran) -> int:
    if outcome.disagreement is not None:
        print(outcome.disagreement.report())
        print(f"RESULT: DISAGREEMENT with the spec at step {outcome.disagreement.step} "
              f"(exit {EXIT_FAIL})")
        return EXIT_FAIL
    if outcome.not_driven is not None:
        print(f"RESULT: NOT FOLLOWED: {outcome.not_driven}; nothing from it on is judged "
              f"(exit {EXIT_NOT_FOLLOWED})")
        return EXIT_NOT_FOLLOWED
    print(f"  every step agreed with the spec ({outcome.steps} steps)")
    reasons = outcome.broken.get(found.property_id, []) if found.property_id else []
    if reasons:
        print(f"  {found.property_id} on the implementation after the last step: broken: "
              f"{'; '.join(reasons)}")
        print(f"RESULT: REPRODUCED: the implementation breaks {found.property_id} as the "
              f"design's spec does (exit {EXIT_WEAKNESS})")
        return EXIT_WEAKNESS
    print(f"RESULT: NOT REPRODUCED: every step agreed and "
          f"{found.property_id or 'no property'} is kept (exit {EXIT_OK})")
    return EXIT_OK


def emit(directory: Path, adapter_path: str, trace: dict[str, Any], where: str) -> str:
    """Write `trace` as a pytest file into `directory`; the line saying where."""
    from model_checks.conform.emit import write_pytest

    path = write_pytest(directory, adapter_path, trace, where)
    return f"  pytest file: {path}"
