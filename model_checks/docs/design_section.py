"""The section of docs/drift-combinations.md for each design other than the key-replicated
LRU: rendered from its committed answers (`docs/results/designs/NAME.json`, written by
`DESIGN_COMMAND`), never from a live run. Per property: the minimal sets of sources that
break it, each with its witness file, the rung or instance it ran on and its length; or
what settles that it holds (an all-instance proof, or the complete search of the largest
environment without a break, at the rung it names); and how many environments stay
undecided. Then the sources that apply, those the design refuses and why, and how it was
produced.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from model_checks.docs.markdown import table
from spec.designs import design_named
from spec.designs.base import source_order

DESIGNS = "results/designs"
DESIGN_COMMAND = ("python -m model_checks design --design {name} --checker lattice "
                  "--sizes 1,1 --processes 2 --max-states 1000000 "
                  "--json docs/results/designs/{name}.json "
                  "--witnesses docs/results/designs/{name}/witnesses")


def load(root: Path) -> list[dict[str, Any]]:
    """Every committed design result under docs/results/designs/, by name."""
    folder = root / DESIGNS
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))] \
        if folder.is_dir() else []


def answers_json(results: list[dict[str, Any]]) -> str:
    """What the doctor reads of each design (shipped as package data): per design its
    variant, sources and, per property and environment, the answer."""
    kept = {r["design"]: {"variant": r["variant"], "title": r["title"],
                          "sources": r["sources"], "properties": r["properties"],
                          "minimal": r["minimal"], "answers": r["answers"]} for r in results}
    return json.dumps(kept, indent=1, sort_keys=True) + "\n"


def sections(results: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for result in results:
        lines += _section(result)
    return lines


def _section(result: dict[str, Any]) -> list[str]:
    name, total = result["design"], 2 ** len(result["sources"])
    lines = [f"## Design `{name}`: the {result['title']}", "",
             f"A design of its own, not a variant of the key-replicated LRU: its own state, "
             f"actions, drift sources and properties (`spec/designs/{name}/`). Variant "
             f"{result['variant']}; {total} environments of its {len(result['sources'])} "
             "sources. A break stands under every environment containing its set (its "
             "witness was replayed there); a hold names what settled it.", ""]
    rows = []
    for prop in result["properties"]:
        rows.append([f"{prop['id']} {prop['title']}", _answer(result, prop["id"], total)])
    lines += [table(["property", "answer"], rows), ""]
    lines += [line for note in getattr(design_named(name), "notes", ()) for line in (note, "")]
    lines += ["Its drift sources:", "",
              table(["source", "what happens in this design"],
                    [[f"{s['id']} {s['title']}", s["effect"]] for s in result["sources"]]), "",
              "Sources of the catalogue that cannot occur in it (the `design` command refuses "
              "them with the reason):", "",
              table(["source", "why it cannot occur"],
                    [[k, v] for k, v in result["refused"].items()]), "",
              "Properties, as this design states them:", ""]
    lines += [f"- {p['id']} ({p['title']}, checked on {p['scope']}): {p['statement']}"
              for p in result["properties"]]
    lines += ["", f"Computed by `{DESIGN_COMMAND.format(name=name)}`: at each rung of the "
              f"ladder ({' / '.join(_rungs(result))}), every environment of one source, then "
              "at the base rung, per property, the largest environments without its breaks; "
              f"at most {result['max_states']:,} states per search (a resource limit). The "
              f"base instance: {_instance(result['base_instance'])}. The committed answers "
              "are re-derived in the main job (`design --check`: the single-source searches "
              "and the proofs).", ""]
    return lines


def _answer(result: dict[str, Any], prop: str, total: int) -> str:
    answers = result["answers"][prop]
    if prop in result["proofs"]:
        return f"holds under every environment, for all depths and every instance, " \
               f"{result['proofs'][prop]}"
    minimal = sorted(result["minimal"][prop], key=_set_order)
    parts = []
    if minimal:
        parts.append("breaks under any of: " + "; ".join(
            _break(result, prop, env, answers[env]) for env in minimal))
    held = sorted({a["basis"] for a in answers.values() if a["verdict"] == "holds"})
    counts = {v: sum(1 for a in answers.values() if a["verdict"] == v)
              for v in ("breaks", "holds", "unknown")}
    if held:
        parts.append(f"holds under the {counts['holds']} environments inside: "
                     + "; ".join(held))
    if counts["unknown"]:
        parts.append(f"undecided under {counts['unknown']} of {total} environments")
    return ". ".join(parts) if parts else "undecided"


def _break(result: dict[str, Any], prop: str, env: str, answer: dict[str, Any]) -> str:
    path = f"results/designs/{result['design']}/witnesses/{env}_{prop}.json"
    return f"{env} ([witness]({path}), {answer['steps']} steps, {answer['basis']})"


def _set_order(env: str) -> tuple[int, list[tuple[str, int]]]:
    ids = env.split("+")
    return len(ids), [source_order(i) for i in ids]


def _rungs(result: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys(e.get("rung_words", "") for e in result["explorations"]
                              if e.get("rung_words"))) or ["the base rung"]


def _instance(instance: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in instance.items() if v not in ((), []))
