"""Which environments a lattice answer decides for every instance, from two kinds of evidence:
a replayed counterexample under E breaks the property under every environment containing E
(the minimal breaking sets' upward closure), and an all-instance proof under E makes it hold
under every environment contained in E. A design's proof may be taken so only where its
argument that its model over-approximates the spec uses only the absence of drift sources
outside E, which holds all the more below E, and its model under E has every behaviour it
has below E (the LRU design's Z3 proofs, declared with the properties they decide by its
lattice, `explore.lattice_lru`, say why theirs are). Every other environment is bounded:
the lattice's explorations hold it at their rung at most. For the largest of those, the
design's prover may try its nearest certificate and keep the query it fails on (the
abstraction step), so the page says why they stay bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from model_checks.explore.exploration import subsets
from model_checks.explore.lattice import Proof
from spec.drift import Environment, drift_order

Attempt = Callable[[str, str, frozenset[str]], str]
"""A design's prover tried on (variant, property, environment): the query its nearest
certificate fails on there, or what proved it."""


class ProofContradicted(AssertionError):
    """A proof under E, yet a replayed counterexample under a subset of E: a defect of the
    abstraction or of a replay, never reported as an answer."""


def _maximal(sets: Iterable[frozenset[str]]) -> list[frozenset[str]]:
    pool = list(sets)
    return [s for s in pool if not any(s < other for other in pool)]


def decided(entry: dict[str, Any], proofs: Sequence[Proof], sources: Sequence[str],
            attempt: Attempt | None = None) -> dict[str, Any]:
    """For a lattice entry of a property a design's proofs decide: the proofs it rests on,
    how many of the 2^n environments over `sources` break (above a minimal set), hold for
    every instance (below a proof) or remain bounded, the smallest remaining ones, whether
    the remaining ones are exactly those between a smallest and a largest, and the largest
    with the query `attempt` fails on there (not tried without one). `ProofContradicted`
    if a proof's environment contains a minimal breaking set."""
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
             "fails": "" if attempt is None
             else attempt(entry["variant"], entry["property"], e)} for e in largest],
    }
