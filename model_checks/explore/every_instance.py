"""Which environments a lattice answer decides for every instance, from two kinds of evidence:
a replayed counterexample under E breaks the property under every environment containing E
(the minimal breaking sets' upward closure), and an all-instance proof under E
(`smt.prove.parametric_goals`; for L1-L3 `smt.prove.parametric_liveness`) makes it hold
under every environment contained in E: each proof's argument that its model
over-approximates the spec uses only the absence of drift sources outside E (the mirror: no
reordering, loss, one-sided removal or skew; P0's assertion: no late-miss source; L1: no
record P0 does not send), which holds all the more below E, and the model under E
has every behaviour it has below E (its environment only enables behaviour, P0's
assertion, or refuses a source outside the mirror's). Every other environment is bounded:
the lattice's explorations hold it at their rung at most. For the largest of those, the
prover's nearest certificate is tried and the query it fails on
(the abstraction step) is kept, so the page says why they stay bounded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from model_checks.explore.exploration import subsets
from model_checks.explore.lattice import Proof
from model_checks.smt.judged import encoded_safety
from spec import drift_order, variant_named
from spec.drift import Environment


def decided_properties() -> tuple[str, ...]:
    """The properties whose environments this decides (the prover's goals are about them):
    the safety properties, H1, which the mirror proves where the caches mirror each other,
    and L1-L3, safety over the monitors' history (`smt.prove.parametric_liveness`).
    Imported when asked: the mirror loads z3, which a usage error must not wait for."""
    from model_checks.smt.prove.parametric_liveness import PROPERTIES as LIVENESS
    from model_checks.smt.prove.parametric_mirror import PROPERTIES as MIRROR_PROPERTIES

    safety = (*encoded_safety(), *(p for p in MIRROR_PROPERTIES if p not in encoded_safety()))
    return (*safety, *LIVENESS)


class ProofContradicted(AssertionError):
    """A proof under E, yet a replayed counterexample under a subset of E: a defect of the
    abstraction or of a replay, never reported as an answer."""


def _maximal(sets: Iterable[frozenset[str]]) -> list[frozenset[str]]:
    pool = list(sets)
    return [s for s in pool if not any(s < other for other in pool)]


def decided(entry: dict[str, Any], proofs: Sequence[Proof], sources: Sequence[str],
            try_remaining: bool = True) -> dict[str, Any] | None:
    """For a lattice entry of a property of `decided_properties()` (None otherwise): the
    proofs it rests on, how many of the 2^n environments over `sources` break (above a
    minimal set), hold for every instance (below a proof) or remain bounded, the smallest
    remaining ones, whether the remaining ones are exactly those between a smallest and a
    largest, and the largest with the query the prover fails on there. `ProofContradicted`
    if a proof's environment contains a minimal breaking set."""
    if entry["property"] not in decided_properties():
        return None
    minimal = [frozenset(m) for m in entry["minimal_breaking"]]
    mine = [p for p in proofs if (p.variant, p.property) == (entry["variant"], entry["property"])]
    proved = [frozenset(p.environment) & frozenset(sources) for p in mine]
    for proof, env in zip(mine, proved, strict=True):
        if any(m <= env for m in minimal):
            raise ProofContradicted(f"{entry['variant']} {entry['property']}: proved under "
                                    f"{Environment.of(env).text} ({proof.checker}), yet "
                                    "broken by a replayed counterexample below it")
    every = subsets(tuple(sources))
    breaking = [e for e in every if any(m <= e for m in minimal)]
    holding = [e for e in every if any(e <= p for p in proved)]
    remaining = [e for e in every if e not in set(breaking) | set(holding)]
    largest = _maximal(remaining)
    smallest = [e for e in remaining if not any(other < e for other in remaining)]
    between = {e for e in every if any(s <= e for s in smallest) and any(e <= m for m in largest)}
    return {
        "environments": len(every), "breaking": len(breaking), "proved": len(holding),
        "remaining": len(remaining),
        "smallest_remaining": [list(drift_order(e)) for e in smallest],
        "remaining_is_interval": between == set(remaining),
        "proofs": [{"environment": list(drift_order(p.environment)), "checker": p.checker,
                    "detail": p.detail} for p in mine],
        "largest_remaining": [
            {"environment": list(drift_order(e)),
             "fails": _fails(entry, e) if try_remaining else ""} for e in largest],
    }


def _fails(entry: dict[str, Any], environment: frozenset[str]) -> str:
    from model_checks.smt.prove import parametric_goals, parametric_liveness

    module = (parametric_liveness if entry["property"] in parametric_liveness.PROPERTIES
              else parametric_goals)
    failed = module.attempt(variant_named(entry["variant"]), entry["property"], environment)
    return failed or "proved by the nearest certificate (not among the goals)"
