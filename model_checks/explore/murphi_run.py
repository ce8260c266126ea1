"""Rumur on the generated Murphi model (`model_checks.explore.murphi`): compile, run, read
the verdict, and replay a counterexample on the spec.

`check(config, properties)` writes the model, has Rumur (unpacked by `scripts/setup-rumur`
under build/rumur, or `rumur` on the PATH) generate its C checker with one thread and
deadlock detection off (a quiescent state is no error here), compiles it with `cc -O3`,
runs it and returns a `RumurRun`: the verdict (the invariant that failed, or None: every
invariant holds on every reachable state), the states explored, the counterexample's
steps as the spec's actions (`actions`), and CPU seconds to generate and compile and to
check, measured as the children's CPU time (`resource.getrusage`).

`check_each(config, properties)` gives every property its own verdict, as the explorer
does: Rumur stops at its first failed invariant, so the model is checked again without each
invariant that failed, until every property left holds (one run per broken property, and
one more unless every property breaks). Rumur searches breadth-first and checks every
invariant on every state it reaches, so the first failure it reports lies at the least depth
of any failing state: the failed invariant's counterexample is its shortest, in each run.

`replay(config, run)` runs a counterexample's actions on the spec (`spec.run`: every one
must be enabled there) and asks the spec whether the property the model says broke is
broken at the trace's last step (`spec.by_id(...).check_trace`): a trace that does not
replay, or replays without that break, is a mistranslation (`Mistranslated`).
"""

from __future__ import annotations

import re
import resource
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from model_checks.explore.murphi import (
    CORRECT,
    HANDLINGS,
    PROPERTIES,
    Followed,
    Mistranslation,
    model,
    submit_shapes,
    submit_table,
)
from spec import ClientItem, Config, Trace, TraceError, by_id, run
from spec.transitions import (
    Action,
    ClearBoth,
    P0Handle,
    P0HandleRejected,
    P0HandleRejectedUndo,
    P0Process,
    P0ReceiveReply,
    P0UpdateItem,
    P1Receive,
    Retry,
    Submit,
)

ROOT = Path(__file__).resolve().parents[2]
UNPACKED = ROOT / "build" / "rumur" / "usr" / "bin" / "rumur"
"""Where `scripts/setup-rumur` unpacks the binary."""
SETUP = ROOT / "scripts" / "setup-rumur"
COMPILE = ("cc", "-std=gnu11", "-O3", "-mcx16")


class RumurMissing(RuntimeError):
    """No rumur binary or no C compiler; the message says how to get them."""


class Mistranslated(AssertionError):
    """A counterexample of the model that the spec does not reproduce."""


@dataclass(frozen=True)
class RumurRun:
    """One Rumur check: `broken` the invariant that failed (None: all hold), `states`
    explored, `steps` the counterexample's rules as Rumur printed them (name and
    parameters), CPU seconds to generate and compile (`compile_seconds`) and to check."""

    broken: str | None
    states: int
    steps: tuple[tuple[str, dict[str, int]], ...]
    compile_seconds: float
    check_seconds: float
    failed: frozenset[str] = frozenset()


def rumur_binary() -> Path:
    """The rumur binary: the unpacked one, else one on the PATH; `RumurMissing` if none,
    or if there is no C compiler to build its checkers."""
    found = UNPACKED if UNPACKED.exists() else shutil.which("rumur")
    if found is None:
        raise RumurMissing(f"rumur not found: run {SETUP.relative_to(ROOT)}")
    if shutil.which("cc") is None:
        raise RumurMissing("no C compiler `cc` to build Rumur's checker: install gcc")
    return Path(found)


def ensure_rumur() -> Path:
    """`rumur_binary()`, running `scripts/setup-rumur` first where it is not unpacked."""
    if not UNPACKED.exists() and shutil.which("rumur") is None:
        done = subprocess.run([str(SETUP)], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RumurMissing(done.stderr.strip() or "scripts/setup-rumur failed")
    return rumur_binary()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def check_text(text: str, workdir: Path, *, symmetry: bool = True, errors: int = 1
               ) -> RumurRun:
    """Rumur on the Murphi model `text`, built and run in `workdir`; `errors` > 1: go on
    until that many invariants failed (no traces printed: `RumurRun.failed` names them)."""
    rumur = rumur_binary()
    workdir.mkdir(parents=True, exist_ok=True)
    source, checker = workdir / "model.m", workdir / "model"
    source.write_text(text)
    start = _children_cpu()
    options = ["--threads", "1", "--deadlock-detection", "off", "--symmetry-reduction",
               "heuristic" if symmetry else "off", "--output", str(workdir / "model.c"),
               *(["--max-errors", str(errors), "--counterexample-trace", "off"]
                 if errors > 1 else [])]
    for command in ([str(rumur), *options, str(source)],
                    [*COMPILE, "-o", str(checker), str(workdir / "model.c"), "-lpthread"]):
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {done.stderr.strip()[:2000]}")
    compiled = _children_cpu()
    done = subprocess.run([str(checker)], capture_output=True, text=True, check=False)
    checked = _children_cpu()
    return parse_output(done.stdout, compiled - start, checked - compiled)


_STATES = re.compile(r"^\s*(\d+) states, \d+ rules fired", re.MULTILINE)
_BROKEN = re.compile(r'^\s*invariant "([^"]+)" failed', re.MULTILINE)
_RULE = re.compile(r'^Rule "(\w+)"(.*) fired\.$', re.MULTILINE)
_PARAM = re.compile(r"(\w+): (?:slot_|ident_)?(\d+)")


def parse_output(text: str, compile_seconds: float, check_seconds: float) -> RumurRun:
    """A checker's output read: the failed invariant, the states and the trace's rules."""
    states = _STATES.findall(text)
    if not states:
        raise RuntimeError(f"Rumur's checker printed no state count: {text[-2000:]}")
    broken = _BROKEN.search(text)
    if broken is None and "No error found" not in text and "error(s) found" not in text:
        raise RuntimeError(f"Rumur's checker reported neither a verdict nor an invariant: "
                           f"{text[-2000:]}")
    steps = tuple((m[1], {k: int(v) for k, v in _PARAM.findall(m[2])})
                  for m in _RULE.finditer(text))
    return RumurRun(None if broken is None else broken[1], int(states[-1]), steps,
                    compile_seconds, check_seconds, frozenset(_BROKEN.findall(text)))


def check(config: Config, properties: tuple[str, ...] = PROPERTIES, *,
          workdir: Path, symmetry: bool = True,
          plant: Mistranslation = CORRECT) -> RumurRun:
    """Rumur on `config`'s model with `properties` as invariants."""
    return check_text(model(config, properties, symmetric=symmetry, plant=plant), workdir,
                      symmetry=symmetry)


@dataclass(frozen=True)
class EachVerdict:
    """Every property of a `check_each` given its verdict: per property the length of its
    shortest counterexample, replayed on the spec (None: it holds), and Rumur's runs, each
    but the last one broken invariant (dropped from the runs after it)."""

    lengths: dict[str, int | None]
    runs: tuple[RumurRun, ...]

    @property
    def states(self) -> int:
        """The states the runs explored, summed."""
        return sum(r.states for r in self.runs)

    @property
    def check_seconds(self) -> float:
        return sum(r.check_seconds for r in self.runs)

    @property
    def compile_seconds(self) -> float:
        return sum(r.compile_seconds for r in self.runs)


def check_each(config: Config, properties: tuple[str, ...] = PROPERTIES, *,
               workdir: Path, symmetry: bool = True,
               plant: Mistranslation = CORRECT) -> EachVerdict:
    """Rumur on `config`'s model until each of `properties` has its verdict (module
    docstring), run `n` in `workdir`/`n`; each counterexample replayed on the spec
    (`replay`: `Mistranslated` where it disagrees)."""
    left, lengths, runs = list(properties), dict[str, int | None](), list[RumurRun]()
    while left:
        found = check(config, tuple(left), workdir=workdir / str(len(runs)),
                      symmetry=symmetry, plant=plant)
        runs.append(found)
        if found.broken is None:
            lengths.update(dict.fromkeys(left))
            break
        lengths[found.broken] = len(replay(config, found).steps)
        left.remove(found.broken)
    return EachVerdict({p: lengths[p] for p in properties}, tuple(runs))


def follow(followed: Sequence[Followed], workdir: Path,
           plant: Mistranslation = CORRECT) -> list[Followed]:
    """The traces of `followed` (all of one configuration) that do NOT replay on the model:
    those whose end the model does not reach with their property broken there, or where a
    state of the model differs from the trace's (`murphi._projection`)."""
    config = followed[0].trace.config
    text = model(config, (), symmetric=False, following=followed, plant=plant)
    done = check_text(text, workdir, symmetry=False, errors=2 * len(followed) + 1)
    return [f for number, f in enumerate(followed, start=1)
            if f"trace {number} end" not in done.failed
            or f"trace {number} diverges" in done.failed]


def actions(config: Config, run_: RumurRun) -> list[Action]:
    """The counterexample's rules as the spec's actions: a slot names the request that
    Submit put there last (rids count submissions from 0, as the spec's do); a Submit with
    identity parameters (identities a scalarset) is its shape's request naming them, the
    scalarset's value n (Rumur tracks their permutations along the trace) the n-th identity
    (from 0): any naming of interchangeable identities is one; a handling's media choice f
    (bit i-1 set: item i without media) is given to the Submit of its request."""
    table = submit_table(config)
    rid_of: dict[int, int] = {}
    submitted_at: dict[int, int] = {}
    found: list[Action] = []
    submitted = 0
    simple: dict[str, type[Action]] = {
        "P0Handle": P0Handle, "P0HandleRejected": P0HandleRejected,
        "P0HandleRejectedUndo": P0HandleRejectedUndo, "P0Process": P0Process,
        "P0UpdateItem": P0UpdateItem, "Retry": Retry}
    for name, params in run_.steps:
        if name == "Submit":
            rid_of[params["s"]] = submitted
            submitted_at[submitted] = len(found)
            submitted += 1
            found.append(_submit(config, params) if "a1" in params else table[params["k"] - 1])
        elif name in simple:
            rid = rid_of[params["s"]]
            if params.get("f", 0):
                at = submitted_at.pop(rid, None)
                if at is None:
                    raise Mistranslated(f"Rumur's trace decides media flags at a handling "
                                        f"of request {rid} that is not its first")
                found[at] = _decided(found[at], params["f"])
            if name in HANDLINGS:
                submitted_at.pop(rid, None)
            found.append(simple[name](rid))  # type: ignore[call-arg]
        elif name == "P1Receive":
            found.append(P1Receive(params["i"] - 1))
        elif name == "P0ReceiveReply":
            found.append(P0ReceiveReply())
        elif name == "ClearBoth":
            found.append(ClearBoth())
        else:
            raise Mistranslated(f"Rumur's trace names an unknown rule {name!r}")
    return found


def _submit(config: Config, params: dict[str, int]) -> Submit:
    """Submit of shape k (`submit_shapes`) naming the rule's identity parameters."""
    shape = submit_shapes(config)[params["k"] - 1]
    return Submit(tuple(ClientItem(config.identities[params[f"a{n}"]], version, data)
                        for n, (version, data) in enumerate(shape, start=1)))


def _decided(submit: Action, choice: int) -> Submit:
    """`submit` with the media flags of `choice` (bit i-1 set: item i without media)."""
    assert isinstance(submit, Submit)
    return Submit(tuple(ClientItem(i.identity, i.version, not ((choice >> n) & 1))
                        for n, i in enumerate(submit.items)), submit.front_end)


def replay(config: Config, run_: RumurRun) -> Trace:
    """The counterexample of `run_` run on the spec, which must break the same property at
    its last step; `Mistranslated` (one line) where it does not."""
    if run_.broken is None:
        raise ValueError("no counterexample to replay: every invariant held")
    try:
        trace = run(config, actions(config, run_))
    except TraceError as error:
        raise Mistranslated(f"Rumur's {run_.broken} counterexample does not run on the "
                            f"spec: {error}") from None
    violation = by_id(run_.broken).check_trace(trace)
    if violation is None or violation.step != len(trace.steps):
        where = "nowhere" if violation is None else f"at step {violation.step}"
        raise Mistranslated(f"Rumur's {run_.broken} counterexample ({len(trace.steps)} "
                            f"steps) breaks {run_.broken} {where} on the spec")
    return trace
