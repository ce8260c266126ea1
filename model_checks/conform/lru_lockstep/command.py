"""`python -m model_checks conform --adapter module:factory` for the LRU design: its runs, as
its entry in the one table (`designs.lockstep_bindings`) declares them, which the one conform
command (`model_checks.conform_command`) runs once its options are parsed and those the runs do
not read refused.

Exit codes (documented in docs/conformance.md and the README), one final line each:

- 0 `RESULT: CONFORMS`: lockstep steps were run (never 0), every step agreed, and every
  `--require`d property was kept;
- 1 `RESULT: REGRESSION` (the implementation broke a property where the spec keeps it) or
  `RESULT: DISAGREEMENT` (it differs from the spec in another observation), the shrunk
  trace printed and written as a replayable JSON trace; also `RESULT: NOTHING CHECKED`
  (0 steps: the adapter supports none of the variants asked for);
- 2 usage error, one line on stderr, no traceback: bad arguments, an adapter path that does
  not import, an adapter that does not match the interface, or a factory or adapter call that
  raises while the sides are built (the call, the exception type and its message);
- 3 `RESULT: HARNESS FAILURE`: the harness could not do its work (the engine process died,
  was stopped, never started); a record says where, nothing is blamed on the implementation;
- 4 `RESULT: CONFORMS, BUT INHERITED WEAKNESS`: every step agreed, and a `--require`d
  property is broken exactly where the variant's spec breaks it too, or the project's
  answers (`model_checks.answers`) break it for the variant in the environment checked,
  whether or not this run reached the break: not a bug of the implementation, a weakness of
  its variant; the summary names the minimal drift environments for it, the witness to
  replay, and what removes it;
- 5 `RESULT: NOT FOLLOWED` (`--replay` only): a step of the trace cannot be driven on the
  implementation; the step and why are printed, nothing from it on is judged.

Arguments are checked here before torch, Hypothesis or the adapter is imported.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from model_checks.conform.profiles import PROFILES
from model_checks.kernel import result_files
from model_checks.kernel.exits import UsageError
from spec import DRIFT_IDS, VARIANT_NAMES, BadEnvironment, Environment, property_ids

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from model_checks.conform.adapter import Adapter
    from spec import Config
    from spec.transitions import Action

    Failure = tuple[str, str, Config, Sequence[Action], str, object]
    Emit = Callable[[Sequence[Failure]], None]
    from model_checks.conform.lru_lockstep.run import Outcome, PropertyBroken
    from model_checks.conform.lru_lockstep.unchecked import Part

from model_checks.conform.exits import EXIT_FAIL, EXIT_WEAKNESS
from model_checks.conform.run import final, first

PROPERTY_IDS = property_ids()
"""The registry's ids when the command loads (`spec.registry()`; the spec is pure Python, so
reading it here imports nothing heavy)."""


def run(args: argparse.Namespace) -> int:
    """The LRU design's lockstep check: its exit code; a usage error raises `UsageError`, a
    harness failure `HarnessFailure` (the command reports them)."""
    required = _required(args.require)
    allowed = _environment(args.environment)
    _check_cheaply(args)
    from model_checks.conform.adapter import AdapterError
    from model_checks.conform.two_processes import ExtraMissing, remote_engines

    remote = None
    try:
        adapter = _adapter(args.adapter)
        variants = _variants(adapter, args.variant)
        if args.processes == 2:
            remote = remote_engines(args.adapter)  # pyzmq and msgspec only when used
        return _checked(args, adapter, variants, required, allowed, remote)
    except (AdapterError, ExtraMissing) as error:
        raise UsageError(str(error)) from None
    finally:
        if remote is not None:
            remote.close()


def _check_cheaply(args: argparse.Namespace) -> None:
    """What can be checked before torch or the adapter is imported (the adapter's module
    exists: the command checked it): options that `--replay` would ignore are not given, the
    replay file is JSON, and the output paths can be written (so a run never ends on an
    unwritable `--json`)."""
    if args.replay is not None:
        ignored = [flag for flag, given in (("--environment", args.environment is not None),
                                           ("--keep-going", args.keep_going)) if given]
        if args.variant and len(args.variant) > 1:
            raise UsageError("--replay runs under one variant: its own, or the one --variant "
                         "names")
        if ignored:
            raise UsageError(f"--replay runs the trace's own configuration as written; "
                         f"{' and '.join(ignored)} cannot apply to it")
        try:
            result_files.read(args.replay)  # plain or compressed
        except OSError as error:
            raise UsageError(f"--replay: cannot read {args.replay}: {error.strerror}") from None
        except ValueError as error:
            raise UsageError(f"--replay: {args.replay} is not JSON: {error}") from None
    for flag, directory in (("--json", args.json.parent if args.json else None),
                            ("--emit-pytest", args.emit_pytest)):
        if directory is not None:
            _writable(flag, directory)


def _writable(flag: str, directory: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{flag}: cannot write into {directory}: {error.strerror}") from None
    if not os.access(directory, os.W_OK):
        raise UsageError(f"{flag}: cannot write into {directory}: permission denied")


def _checked(args: argparse.Namespace, adapter: Adapter, variants: tuple[str, ...] | None,
             required: frozenset[str], allowed: frozenset[str] | None, remote: object) -> int:
    """Build the sides once (adapter errors before any step), then the run and its report."""
    from model_checks.conform.adapter import preflight
    from model_checks.conform.lru_lockstep import EngineFactory
    from model_checks.conform.lru_lockstep.report import shrink_broken
    from model_checks.conform.lru_lockstep.run import ConformRun, conform
    from model_checks.conform.lru_lockstep.trace_files import replay_trace
    from spec import environment

    factory: EngineFactory | None = remote  # type: ignore[assignment]
    preflight(adapter, variants or VARIANT_NAMES, factory)
    missing = _missing(adapter, variants, required)
    if args.replay is not None:
        return replay_trace(adapter, args.replay, factory, required,
                            emit=_emitter(args, adapter),
                            variant=variants[0] if variants else None)
    env = None if allowed is None else environment(*allowed)
    run = ConformRun(variants=variants, engine_factory=factory, seed=args.seed,
                     keep_going=args.keep_going, environment=env)
    outcome = conform(adapter, PROFILES[args.profile], run)
    broken = outcome.broken_properties()
    for prop in sorted(required.intersection(broken)):
        broken[prop] = shrink_broken(adapter, factory, prop, broken[prop])
    mode = "two processes (zmq)" if remote else "one process"
    return _report(args, adapter, outcome, broken, required, (allowed, mode, missing))


def _missing(adapter: Adapter, variants: tuple[str, ...] | None, required: frozenset[str]
             ) -> tuple[Part, ...]:
    """The optional parts the adapter lacks; a usage error if a required property's check
    needs one of them."""
    from model_checks.conform.lru_lockstep.unchecked import absent, needing

    missing = absent(adapter, variants or VARIANT_NAMES)
    error = needing(required, missing)
    if error is not None:
        raise UsageError(error)
    return missing


def _adapter(path: str) -> Adapter:
    from model_checks.conform.adapter import AdapterError, load_adapter

    try:
        return load_adapter(path)
    except AdapterError:
        raise
    except Exception as error:  # a usage error: one line, no traceback
        raise UsageError(f"--adapter: {type(error).__name__}: {error}") from None


def _required(text: str | None) -> frozenset[str]:
    if text is None:
        return frozenset()
    ids = [part.strip().upper() for part in text.split(",") if part.strip()]
    if not ids:
        raise UsageError(f"--require: got {text!r}, expected property ids, e.g. S1,S2,S3")
    unknown = [i for i in ids if i not in PROPERTY_IDS]
    if unknown:
        raise UsageError(f"--require: got {', '.join(unknown)}, expected ids among "
                     f"{', '.join(PROPERTY_IDS)}")
    return frozenset(ids)


def _environment(env: Environment | None) -> frozenset[str] | None:
    if env is None:
        return None
    try:
        return env.within(DRIFT_IDS).ids
    except BadEnvironment as error:
        raise UsageError(str(error)) from None


def _why_not(adapter: Adapter, variants: list[str]) -> list[str]:
    """One line per variant not checked, with the adapter's reason where it gives one (an
    optional `unsupported_reason(variant) -> str`)."""
    reason = getattr(adapter, "unsupported_reason", None)
    if reason is None:
        return []
    return [f"  {variant}: {reason(variant)}" for variant in variants if reason(variant)]


def _variants(adapter: Adapter, asked: list[str] | None) -> tuple[str, ...] | None:
    if not asked:
        return None
    from model_checks.conform.adapter import supports

    missing = [v for v in asked if not supports(adapter, v)]
    if missing:
        has = [v for v in VARIANT_NAMES if supports(adapter, v)]
        raise UsageError(f"--variant: adapter {adapter.name} does not support "
                     f"{', '.join(missing)} (it supports {', '.join(has) or 'none'})"
                     + "".join(f";{why.removeprefix(' ')}" for why in _why_not(adapter, missing)))
    return tuple(asked)


def _report(
    args: argparse.Namespace,
    adapter: Adapter,
    outcome: Outcome,
    broken: dict[str, PropertyBroken],
    required: frozenset[str],
    run: tuple[frozenset[str] | None, str, tuple[Part, ...]],
) -> int:
    """The report of a lockstep run; `run` is (the environment allowed, the process mode,
    the optional parts the adapter lacks)."""
    from model_checks.conform.lru_lockstep.report import (
        choices_line,
        coverage_line,
        safety_lines,
        statuses,
    )
    from model_checks.conform.lru_lockstep.trace_files import write_failure_traces
    from model_checks.conform.lru_lockstep.unchecked import lines as unchecked_lines
    from model_checks.conform.lru_lockstep.unchecked import lockstep_untested_lines
    from model_checks.conform.notation import wrap

    allowed, mode, missing = run

    where = "every drift source" if allowed is None else "environment " + (
        Environment.of(allowed).text)
    lines = [
        f"conformance of {adapter.name} ({mode}, profile {args.profile}, {where}): "
        f"{outcome.steps} lockstep steps in {outcome.seconds:.1f}s "
        f"({outcome.steps_per_second:.0f} steps/s)",
        f"variants checked: {' '.join(outcome.checked) or 'none'}; not checked (the adapter "
        f"does not support them): {' '.join(outcome.not_checked) or 'none'}",
        *_why_not(adapter, outcome.not_checked),
    ]
    print("\n".join(wrap(lines)))
    paths = write_failure_traces(args.json, outcome, broken) if args.json else None
    for number, finding in enumerate(outcome.findings, start=1):
        print(f"DISAGREEMENT in {finding.where}")
        print(finding.disagreement.report())
        if paths is not None and number - 1 < len(paths.findings):
            print("\n".join(wrap([f"  replay against the implementation: python -m "
                                  f"model_checks conform --adapter {args.adapter} --replay "
                                  f"{paths.findings[number - 1]}"])))
    if outcome.harness is not None:
        print(f"HARNESS FAILURE in {outcome.harness} (not the implementation's; the run "
              f"stopped there)")
    elif outcome.steps == 0:
        print("NOTHING CHECKED: 0 lockstep steps (the adapter supports none of the variants "
              "asked for); this is not a pass")
    elif not outcome.findings:
        print("lockstep: every step agreed with the spec")
    print("\n".join(safety_lines(outcome, broken, required,
                                 paths.properties if paths else {}, args.adapter, allowed)))
    print("\n".join(wrap([coverage_line(outcome, allowed), choices_line(outcome),
                           *unchecked_lines(missing),
                           *lockstep_untested_lines(outcome.refusals)])))
    if args.json:
        from model_checks.conform.lru_lockstep.trace_files import write_run_records

        write_run_records(args.json, outcome, paths, [p.to_json() for p in missing])
    emitter = _emitter(args, adapter)
    if emitter is not None:
        emitter(_failures(outcome, broken))
    status = statuses(outcome, allowed)
    code, final = _final(outcome, required, status)
    print(final)
    return code


def _emitter(args: argparse.Namespace, adapter: Adapter) -> Emit | None:
    """`--emit-pytest DIR`: a function writing the failures it gets as pytest files."""
    if args.emit_pytest is None:
        return None
    from model_checks.conform.lru_lockstep.calls import emit_all

    def emitter(failures: Sequence[Failure]) -> None:
        for line in emit_all(args.emit_pytest, adapter, args.adapter, failures):
            print(line)

    return emitter


def _failures(outcome: Outcome, broken: dict[str, PropertyBroken]) -> list[Failure]:
    """Every disagreement and every broken property, as `calls.emit_all` takes them."""
    found: list[Failure] = []
    for number, finding in enumerate(outcome.findings, start=1):
        d = finding.disagreement
        found.append((f"conform_disagreement_{number}", finding.where, finding.config,
                      d.actions[:d.step], d.caught_by, d.spec_side))
    for prop, b in sorted(broken.items()):
        found.append((f"conform_{prop}", b.where, b.config, b.broken.actions, prop, None))
    return found


def _final(outcome: Outcome, required: frozenset[str],
           status: dict[tuple[str, str], str]) -> tuple[int, str]:
    """The exit code and the one final line that says it."""
    from model_checks.conform.lru_lockstep.report import INHERITED, KEPT, KNOWN, REGRESSION, VACUOUS

    if outcome.harness is None and outcome.findings:
        regressions = sorted(f"{p} on {v}" for (v, p), s in status.items() if s == REGRESSION)
        if regressions:
            return EXIT_FAIL, (f"RESULT: REGRESSION: the implementation breaks "
                               f"{first(regressions)} where the spec keeps it (exit 1)")
    if outcome.harness is not None or outcome.findings or outcome.steps == 0:
        return final(outcome)
    weak: dict[str, list[str]] = {}
    for (v, p), s in sorted(status.items()):
        if s in (INHERITED, KNOWN) and p in required:
            weak.setdefault(v, []).append(p)
    if weak:
        said = "; ".join(f"{','.join(ps)} on {v}" for v, ps in weak.items())
        return EXIT_WEAKNESS, (f"RESULT: CONFORMS, BUT INHERITED WEAKNESS of the variant: "
                               f"required {said} (exit {EXIT_WEAKNESS})")
    kept = sorted(p for p in required if all(
        status[(v, p)] in (KEPT, VACUOUS) for v in outcome.checked))
    return final(outcome, kept=f"; required properties kept in {outcome.steps} sampled "
                 f"steps: {', '.join(kept)}" if required else "")
