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
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from model_checks.conform.design_lockstep import (
    Binding,
    Disagreement,
    LockstepAdapter,
    Outcome,
    Unmappable,
    replay,
    walk,
)
from model_checks.conform.exits import (
    EXIT_FAIL,
    EXIT_NOT_FOLLOWED,
    EXIT_OK,
    EXIT_WEAKNESS,
    HarnessFailure,
)
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
    """The environments to check, as LRU conformance does (`conform.configurations`): no
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
    design = binding.design
    steps = args.steps or DEFAULT_STEPS
    print(f"conformance of {adapter.name} to design {design.name} ({design.variants[0]}), "
          f"{steps} lockstep steps per environment, seed {args.seed}")
    printed: list[str] = []
    for env in envs:
        if not _environment_agrees(args, binding, adapter, env, printed):
            return EXIT_FAIL
    return _witnesses(args, binding, adapter, envs)


def _environment_agrees(args: argparse.Namespace, binding: Binding, adapter: LockstepAdapter,
                        env: frozenset[str], printed: list[str]) -> bool:
    """The seeded runs of one environment (its byte map printed where it differs from the
    one `printed` last); whether every step agreed."""
    design = binding.design
    config = design.instance(design.variants[0], env)
    seed = f"{args.seed}:{Environment.of(env).text}"
    lines = guarded(lambda: adapter.byte_map(config), "byte_map")
    if lines != printed:
        print("\n".join(f"  {line}" for line in lines))
        printed[:] = lines
    outcome = guarded(lambda: walk(binding, adapter, config, args.steps or DEFAULT_STEPS,
                                   seed), "a lockstep run")
    label = Environment.of(env).text
    if _failed(args, design, outcome, env, f"environment {label} (seed {seed!r})"):
        return False
    if outcome.steps == 0:
        print(f"  environment {label}: 0 lockstep steps (the spec enables nothing in its "
              f"initial state); this is not a pass")
        print(f"RESULT: NOTHING CHECKED (exit {EXIT_FAIL})")
        return False
    print(f"  environment {label}: {outcome.steps} lockstep steps, every step agreed")
    return True


def _witnesses(args: argparse.Namespace, binding: Binding, adapter: LockstepAdapter,
               envs: list[frozenset[str]]) -> int:
    """Every committed witness of the design whose environment the run covers, in
    lockstep."""
    design = binding.design
    covered = frozenset().union(*envs)
    found = [read_witness(path, design) for path in committed(ROOT, witnesses_of(design.name))]
    chosen = [w for w in found if w.environment <= covered]
    for witness in chosen:
        if not _witness_agrees(args, binding, adapter, witness):
            return EXIT_FAIL
    print(f"  witnesses: {len(chosen)} committed witness(es) replayed in lockstep, every step "
          f"agreed")
    print(f"RESULT: CONFORMS: every step agreed (exit {EXIT_OK})")
    return EXIT_OK


def _witness_agrees(args: argparse.Namespace, binding: Binding, adapter: LockstepAdapter,
                    witness: WitnessDocument) -> bool:
    outcome = guarded(lambda: replay(binding, adapter, witness.config(), witness.actions),
                      witness.label())
    return not _failed(args, witness.design, outcome, witness.environment,
                       f"the witness of {witness.label()}")


def _failed(args: argparse.Namespace, design: Design, outcome: Outcome[Disagreement, list[str]],
            env: frozenset[str], where: str) -> bool:
    """Print a disagreement or a step not driven of a run (and emit it); whether it had one."""
    if outcome.disagreement is None and outcome.not_driven is None:
        return False
    trace = document(WitnessDocument(design, design.variants[0], env, None,
                                     tuple(outcome.actions)))
    if outcome.disagreement is not None:
        print(f"DISAGREEMENT in {where}, at step {outcome.disagreement.step}:")
        print(outcome.disagreement.report())
    else:
        print(f"NOT FOLLOWED in {where}: {outcome.not_driven}")
    print(f"  the trace, to replay with --replay FILE:\n  {json.dumps(trace)}")
    if args.emit_pytest is not None:
        print(emit(args.emit_pytest, args.adapter, trace, f"a lockstep run in {where}"))
    print(f"RESULT: DISAGREEMENT with design {design.name}'s spec in {where} (exit {EXIT_FAIL})")
    return True


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


def _replay_verdict(found: WitnessDocument, outcome: Outcome[Disagreement, list[str]]) -> int:
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
