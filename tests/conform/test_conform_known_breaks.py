"""The gate never says "conforms" where the project's answers break what it was asked to
require: for every minimal breaking environment of every variant's safety properties, `conform`
on the reference's own implementation of that variant, in exactly that environment, requiring
that property, exits 4 (an inherited weakness), whether or not its sampled run reached the
break. (The router, one front end and two engines, is a topology conform does not run.)"""

from __future__ import annotations

import pytest

from model_checks.answers import load
from model_checks.cli import main
from spec import DRIFT_IDS, VARIANT_NAMES, safety_ids

REFERENCE = "model_checks.conform.reference_adapter:factory"
EXIT_WEAKNESS = 4


def _minimal_breaks() -> list[tuple[str, str, str]]:
    store = load()
    return [(variant, "+".join(env), prop) for variant in VARIANT_NAMES for prop in safety_ids()
            for env in store.minimal_breaking(variant, prop)
            if all(source in DRIFT_IDS for source in env)]  # conform runs drift, not topologies


CASES = _minimal_breaks()


def test_the_store_has_breaks_to_gate_on() -> None:
    assert len(CASES) >= 15  # V0's S3 alone breaks under ten single sources
    assert ("V2", "D7", "S1") in CASES


@pytest.mark.parametrize(("variant", "environment", "prop"), CASES,
                         ids=[f"{v}_{e}_{p}" for v, e, p in CASES])
def test_conform_does_not_pass_a_known_break(variant: str, environment: str, prop: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["conform", "--adapter", REFERENCE, "--variant", variant,
                 "--environment", environment, "--require", prop])
    out = capsys.readouterr().out
    assert code == EXIT_WEAKNESS, out[-2000:]
    assert f"required {prop} on {variant}" in out.splitlines()[-1]
