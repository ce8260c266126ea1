"""The lattice's L4 proof for a variant whose resends bypass the shadow is derived only from
S3 and L2 proved for every instance, under the environment both cover: without either, or
for a variant that reads the shadow on a resend, nothing is derived."""

from __future__ import annotations

from model_checks.explore.lattice import Proof
from model_checks.explore.lattice_lru import FIRST_RESEND, first_resend_proofs
from spec import DRIFT_IDS

EVERY = tuple(DRIFT_IDS)
SOME = ("D1", "D2", "D3")


def _proof(variant: str, prop: str, env: tuple[str, ...]) -> Proof:
    return Proof(variant, prop, env, "z3-parametric", "certificate")


def test_l4_is_derived_from_s3_and_l2_under_the_environment_both_cover() -> None:
    derived = first_resend_proofs((_proof("V4", "S3", EVERY), _proof("V4", "L2", SOME)))
    assert [(p.variant, p.property, p.environment, p.checker) for p in derived] == [
        ("V4", "L4", SOME, FIRST_RESEND)]


def test_nothing_is_derived_without_both_proofs_or_without_the_bypass() -> None:
    assert first_resend_proofs((_proof("V4", "S3", EVERY),)) == ()
    assert first_resend_proofs((_proof("V4", "L2", EVERY),)) == ()
    assert first_resend_proofs((_proof("V3", "S3", EVERY), _proof("V3", "L2", EVERY))) == ()


def test_the_page_calls_the_first_resend_answer_an_argument_not_a_solvers_proof() -> None:
    """The derived L4 rests on two proofs and an argument: the page does not say "for all
    depths", which it says of a solver's proof."""
    from model_checks.docs.lattice_page import answer

    base = {"vacuous": None, "proved_every_instance": True, "holds_everywhere": False}
    argued = answer({**base, "proved_by": [FIRST_RESEND]})
    assert "by an argument from all-instance proofs, itself no solver's" in argued
    assert "for all depths" not in argued
    proved = answer({**base, "proved_by": ["z3-parametric"]})
    assert "for all depths and every instance (Z3's parametric proof)" in proved
