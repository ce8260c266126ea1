"""Runs that start from the committed witnesses: with `--environment`, every committed
witness of the variant inside the deployment is driven in lockstep on the implementation,
continued and mutated (`model_checks.conform.lru_lockstep.corpus`), so each minimal breaking set of
V2's S1 and S3 is reached by the reference's own run (exit 4 with `--require`, the trace
written from that run)."""

from __future__ import annotations

import contextlib
import io

import pytest

from model_checks.cli import main
from model_checks.conform.lru_lockstep.corpus import MUTANTS, witness_cases
from spec import environment, variant_named

REFERENCE = "model_checks.conform.reference_adapter:factory"


def _conform(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["conform", *argv])
    return code, out.getvalue()


def test_the_witnesses_inside_the_environment_each_with_its_mutants() -> None:
    cases = list(witness_cases(variant_named("V2"), environment("D7"), 0))
    names = [j.name for j in cases if " mutant " not in j.name]
    assert names and all(n.startswith("V2_D7_") for n in names)
    assert len(cases) == len(names) * (1 + MUTANTS)
    assert [j.script for j in cases] == [j.script for j in
                                        witness_cases(variant_named("V2"), environment("D7"), 0)]
    assert not list(witness_cases(variant_named("V2"), environment("D11"), 0))


@pytest.mark.parametrize(("sources", "prop"), [("D7", "S1"), ("D6", "S3"), ("D7", "S3"),
                                               ("D8", "S3")])
def test_each_minimal_break_of_v2_is_reached_by_the_references_run(sources: str, prop: str
                                                                   ) -> None:
    code, out = _conform("--adapter", REFERENCE, "--variant", "V2", "--environment", sources,
                         "--require", prop)
    assert code == 4, out
    assert "(V2 witness V2_" in out
