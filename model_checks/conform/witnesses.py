"""Runs that start from the committed witnesses: the known breaks reached by the
implementation's own lockstep runs.

For a run with `--environment`, every committed witness of the variant under check
(`docs/results/lattice/<variant>_<sources>_<property>.json.gz`: the shortest trace that breaks a
property in a minimal environment) whose environment lies inside the deployment's is a
`WitnessCase`: its actions driven in lockstep on the implementation (so a break it reaches is
the implementation's own, judged on its observations, not a replay of the file), then a
seeded continuation beyond it (`CONTINUE` spec steps chosen among those enabled), and
`MUTANTS` seeded mutants of it (one step deleted, then continued). A step the spec does not
enable is skipped, as in every scripted run.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from model_checks.conform.adapter import Adapter
from model_checks.conform.lru_lockstep import Driving, EngineFactory, Lockstep, raised, replay
from model_checks.kernel import result_files
from model_checks.kernel.trace_file import BadTraceFile, replay_file
from spec import Config, Drift, Variant, enabled, initial, step
from spec.transitions import Action, InvalidAction

LATTICE = Path(__file__).resolve().parents[2] / "docs" / "results" / "lattice"
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
