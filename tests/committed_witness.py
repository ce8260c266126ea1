"""A committed run of the spec that breaks a property: its configuration, its actions, the
variants it breaks, and its replayable trace file (one per variant, under its folder). The
all-instance prover's liveness witnesses (`tests/smt/parametric_witness_liveness.py`) and the
retry theorem's breaks (`tests/retry_witnesses.py`) are such runs."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from model_checks.kernel import itf
from model_checks.kernel.trace_file import trace_to_json
from model_checks.kernel.verdict_records import SCENARIOS
from spec import Config, Environment, Trace, Variant, by_id, run
from spec.transitions import Action


@dataclass(frozen=True)
class Witness:
    """A run that breaks `property` under `config`'s environment in each of `variants` at
    its last step; `failing_step` is the step of the proof it confirms; its trace files are
    kept under `folder`."""

    name: str
    property: str
    variants: tuple[Variant, ...]
    config: Config
    actions: tuple[Action, ...]
    failing_step: str
    folder: str = "docs/results/parametric-witnesses"

    def config_for(self, variant: Variant) -> Config:
        return replace(self.config, variant=variant)

    def trace(self, variant: Variant) -> Trace:
        return run(self.config_for(variant), self.actions)

    def path(self, variant: Variant) -> Path:
        env = Environment.of(self.config.environment).text
        return Path(self.folder) / f"{variant.name}_{env}_{self.property}.json"

    def trace_json(self, variant: Variant) -> dict[str, Any]:
        """The run as a replayable trace file, breaking the property at its last step."""
        trace = self.trace(variant)
        violation = by_id(self.property).check_trace(trace)
        assert violation is not None, f"{self.name} no longer breaks {self.property}"
        return trace_to_json(trace, property_id=self.property, step=violation.step,
                             reason=violation.reason, checker=SCENARIOS.record)

    def text(self, variant: Variant) -> str:
        """The trace file's text (`itf.text`)."""
        return itf.text(self.trace_json(variant))


def write_witnesses(witnesses: tuple[Witness, ...], root: Path = Path(".")) -> list[Path]:
    """Write each witness's trace file, one per variant, under `root`; returns the paths."""
    written = []
    for witness in witnesses:
        for variant in witness.variants:
            target = root / witness.path(variant)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(witness.text(variant))
            written.append(target)
    return written
