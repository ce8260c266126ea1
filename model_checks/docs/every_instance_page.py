"""The lattice page's section "For every instance": per variant and S1-S3 and H1, whether every
environment is decided for every instance (a replayed break above, an all-instance proof
below), with the proofs it rests on, or how many environments remain bounded and the
abstraction step the prover fails on there (`model_checks.explore.every_instance`)."""

from __future__ import annotations

from typing import Any

from spec import DRIFT_IDS


def _under(environment: list[str]) -> str:
    """An environment in words, by what it leaves out where that is shorter."""
    missing = [d for d in DRIFT_IDS if d not in environment]
    if not missing:
        return "every source (D1-D11 at once)"
    if len(missing) < len(environment):
        return "every source but " + ", ".join(missing)
    return "+".join(environment) or "no drift"


def _certificate(detail: str) -> str:
    """The certificate's parts from a parametric record's detail ("method: parts; peak")."""
    return detail.split(": ", 1)[-1].split("; peak")[0]


def _proofs(answer: dict[str, Any]) -> str:
    return "; ".join(f"under {_under(p['environment'])} by {_certificate(p['detail'])}"
                     for p in answer["proofs"]) or "none"


def line(entry: dict[str, Any]) -> str:
    """One bullet for an entry with an `every_instance` answer."""
    a = entry["every_instance"]
    head = f"- **{entry['variant']} {entry['property']}**: "
    counts = (f"{a['breaking']:,} environments break (above a minimal set: replayed "
              f"counterexamples), {a['proved']:,} hold for every instance (below a proof: Z3's "
              f"parametric proofs, {_proofs(a)})")
    if a["remaining"] == 0:
        return head + f"decided for all {a['environments']:,} environments, for every " \
                      f"instance: {counts}."
    largest = "; ".join(f"{'+'.join(r['environment']) or 'no drift'} (the prover's nearest "
                        f"certificate fails: {r['fails']})" for r in a["largest_remaining"])
    which = ""
    if a.get("remaining_is_interval"):
        low = " or ".join("+".join(e) for e in a["smallest_remaining"] if e)
        which = (f": exactly those containing {low} and contained in a largest one" if low
                 else ": exactly those contained in a largest one")
    return head + (f"{a['remaining']:,} of {a['environments']:,} environments remain bounded "
                   f"(held by the explorer at its rung, or not explored: never for every "
                   f"instance){which}; the largest: {largest}. {counts[0].upper()}{counts[1:]}.")


def section(entries: list[dict[str, Any]]) -> list[str]:
    """The section's lines; empty when the run had no all-instance proofs (`--parametric`)."""
    mine = [e for e in entries if "every_instance" in e]
    if not mine:
        return []
    properties = list(dict.fromkeys(e["property"] for e in mine))
    return [
        f"## For every instance: {', '.join(properties[:-1])} and {properties[-1]}"
        if len(properties) > 1 else f"## For every instance: {properties[0]}", "",
        "A replayed counterexample under E breaks the property under every environment "
        "containing E; an all-instance proof under E (`prove --parametric`, "
        "`model_checks/smt/prove/parametric_goals.py`: any identities, contents per identity "
        "with their own sizes, items per request, requests, front ends and budget) makes it "
        "hold under every environment contained in E. Every other environment is bounded. "
        "Why each proof's abstraction over-approximates the spec, and the mutant each "
        "rejects: `docs/checkers.md`, \"Every instance\". H1, and V0's S3 (V0 crashes on "
        "any miss), relate P0's shadow to P1's cache: their proofs are the mirror's "
        "(`model_checks/smt/prove/parametric_mirror.py`: uninterpreted LRU states, P1's cache "
        "the shadow as it was before the oldest operation in flight), which holds only with "
        "one front end and one engine, FIFO delivery, nothing removed from one side only and "
        "equal sizes: no drift or D11, and D7 and D8 where P0 never asserts (V3).", "",
        *[line(e) for e in mine], "",
    ]
