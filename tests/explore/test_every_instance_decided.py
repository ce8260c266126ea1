"""The committed lattice (`docs/results/lattice.json`) decides S1, S2, S3, H1, L1, L2 and L3
of every variant for all 2^11 environments, for every instance: each environment is above a
replayed break or below an all-instance proof, none is left bounded; no proof lies above a
break; S2 holds everywhere by a proof under every source; and the page says so
(`docs/drift-combinations.md`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from model_checks.explore.lattice_lru import decided_properties
from spec import DRIFT_IDS, VARIANT_NAMES

ROOT = Path(__file__).resolve().parents[2]


def _entries() -> dict[tuple[str, str], dict[str, Any]]:
    data = json.loads((ROOT / "docs/results/lattice.json").read_text())
    return {(e["variant"], e["property"]): e for e in data if "every_instance" in e}


@pytest.mark.parametrize("variant", VARIANT_NAMES)
@pytest.mark.parametrize("prop", decided_properties())
def test_every_environment_is_decided_for_every_instance(variant: str, prop: str) -> None:
    answer = _entries()[variant, prop]["every_instance"]
    assert answer["environments"] == 2 ** len(DRIFT_IDS)
    assert answer["remaining"] == 0
    assert answer["breaking"] + answer["proved"] == answer["environments"]


@pytest.mark.parametrize("variant", VARIANT_NAMES)
@pytest.mark.parametrize("prop", decided_properties())
def test_no_proof_environment_contains_a_minimal_breaking_set(variant: str, prop: str) -> None:
    entry = _entries()[variant, prop]
    for proof in entry["every_instance"]["proofs"]:
        assert not any(set(m) <= set(proof["environment"]) for m in entry["minimal_breaking"])


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_s2_rests_on_a_proof_under_every_source(variant: str) -> None:
    answer = _entries()[variant, "S2"]["every_instance"]
    assert answer["breaking"] == 0
    assert [p["environment"] for p in answer["proofs"]] == [list(DRIFT_IDS)]
    page = (ROOT / "docs/drift-combinations.md").read_text()
    assert (f"- **{variant} S2**: decided for all 2,048 environments, for every instance"
            in page)
