"""docs/invariants.md lists every part of the relational certificates that `prove` checks, read
from the code (`model_checks/smt/prove/relational.py`), so the page says what is proved."""

from __future__ import annotations

from pathlib import Path

from model_checks.smt.prove import relational

PAGE = Path(__file__).resolve().parent.parent / "docs" / "invariants.md"


def test_every_part_of_both_certificates_is_on_the_page() -> None:
    text = PAGE.read_text()
    certificates = (relational.mirror_invariants(relational.PROPERTIES),
                    relational.agreement_invariants())
    for invariants in certificates:
        for invariant in invariants:
            assert f"- `{invariant.name}`: " in text, invariant.name
    assert "drift within {D7, D8, D11}" in text
    assert "drift within {D3, D4, D7, D9, D10, D11}" in text
