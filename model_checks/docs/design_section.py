"""The section of docs/drift-combinations.md for each design other than the key-replicated
LRU: rendered from its committed answers (`docs/results/designs/NAME.json.gz`, written by
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
from model_checks.kernel import result_files
from spec.designs import design_named
from spec.designs.base import source_order

DESIGNS = "results/designs"
DESIGN_COMMAND = ("python -m model_checks explore --lattice --design {name} "
                  "--sizes {sizes} --jobs 2 --max-states {max_states} "
                  "--json docs/results/designs/{name}.json.gz "
                  "--out docs/results/designs/{name}/witnesses")


NOTES: dict[str, list[str]] = {
    "encoder": [
        "Standing alone (no processor cache in front: `--mm-processor-cache-gb 0`), the "
        "encoder cache never kills the engine: its output and its placeholders come from one "
        "processing. A reused identity is answered from the old content when the sizes are "
        "equal (S1, S4: a silently wrong answer), and the scheduler's guard fails that "
        "request when they differ, while the entry is cached; once it is evicted, the new "
        "content is encoded. Its actions are vLLM 0.33.0's functions listed, with their "
        "pins, in `tests/designs/encoder_code.py` (checked against the installed "
        "release by `tests/designs/test_encoder_code.py`).", ""],
    "lru+encoder": [
        "Two explicit witnesses (`model_checks/designs/path_witnesses.py`), each replayed "
        "on the spec: under D7 alone (`results/designs/lru+encoder/witnesses/D7_E2E.json`), "
        "requests failed by P0's assertion leave P0's shadow with a reused identity's old "
        "placeholders while P1 keeps the new tensor, and the encoder cache's entry passes "
        "the guard (equal sizes): a silently wrong answer. Under D2 and D7 with ordinary "
        "requests (`results/designs/lru+encoder/witnesses/D2+D7_E.S3.json`), requests "
        "rejected after P0 processed them leave P0's shadow with the new, larger content's "
        "placeholders while P1 keeps the old tensor; the encoder cache has evicted the "
        "identity, so the guard has nothing to compare, the encoder computes the old "
        "content's embeddings and the model's merge raises (`Attempted to assign 1 "
        "multimodal tokens to 2 placeholders`): the engine dies. While the encoder cache "
        "still holds the identity, the guard fails that request instead. Both reproduce on "
        "vLLM 0.33.0's own `EncoderCacheManager`, driven as the scheduler and the workers "
        "drive it, the processor cache's stage on the spec (`python -m "
        "model_checks.adapters.vllm_encoder --replay FILE`, exit 4; "
        "`tests/designs/test_vllm_encoder_replay.py`).", "",
        "**The prefix cache.** Can a reused identity with new content reuse KV blocks "
        "computed from the old content? Yes, from the code: a block that holds placeholders "
        "is keyed by `(\"mm\", identifier, offset)` besides its token ids "
        "(`_gen_mm_extra_hash_keys`, pinned in `tests/designs/encoder_code.py`; "
        "`tests/designs/test_encoder_code.py` checks that the key names the identity and "
        "nothing of the content). A reused identity whose new content has as many "
        "placeholders, in an otherwise equal prompt, has the same block hashes: its blocks "
        "are prefix-cache hits, the encoder never runs for it, and the answer is computed "
        "from the old content's KV (E2E and S4 broken, silently). With another number of "
        "placeholders the blocks wholly inside the common run of placeholders still hit. "
        "The prefix cache is not a stage of this composition (no witness in the model), so "
        "this answer is bounded to what the block key shows; only a content-bound identity "
        "(the content hash, or a tag in the key) removes it.", ""],
}
"""Hand-written paragraphs per design, each naming the check or file behind it."""


def load(root: Path) -> list[dict[str, Any]]:
    """Every committed design result under docs/results/designs/, by name (each kept
    plain or compressed: `kernel.result_files`)."""
    folder = root / DESIGNS
    if not folder.is_dir():
        return []
    names = sorted({p.name.removesuffix(".gz") for p in folder.glob("*.json*")
                    if p.name.endswith((".json", ".json.gz"))})
    return [result_files.read(folder / n) for n in names]


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
    if result.get("stages"):
        stages = ", then ".join(f"`{s['design']}` ({s['variant']}, properties `{s['prefix']}.*`)"
                                for s in result["stages"])
        what = (f"Designs composed along a request's path by the recipe of "
                f"`spec/designs/compose.py` ({stages}; `spec/designs/paths.py`): one design "
                "whose sources are its stages' and whose properties are its end-to-end ones, "
                "then each stage's")
    else:
        what = (f"A design of its own, not a variant of the key-replicated LRU: its own state, "
                f"actions, drift sources and properties (`spec/designs/{name}/`)")
    lines = [f"## Design `{name}`: the {result['title']}", "",
             f"{what}. Variant {result['variant']}; {total} environments of its "
             f"{len(result['sources'])} sources. A break stands under every environment "
             "containing its set (its witness was replayed there); a hold names what settled "
             "it.", ""]
    rows = []
    for prop in result["properties"]:
        rows.append([f"{prop['id']} {prop['title']}", _answer(result, prop["id"], total)])
    lines += [table(["property", "answer"], rows), ""]
    lines += [line for note in getattr(design_named(name), "notes", ()) for line in (note, "")]
    lines += ["Its drift sources:", "",
              table(["source", "what happens in this design"],
                    [[f"{s['id']} {s['title']}", s["effect"]] for s in result["sources"]]), "",
              "Sources of the catalogue that cannot occur in it (`explore --design` refuses "
              "them with the reason):", "",
              table(["source", "why it cannot occur"],
                    [[k, v] for k, v in result["refused"].items()]), "",
              "Properties, as this design states them:", ""]
    lines += [f"- {p['id']} ({p['title']}, checked on {p['scope']}): {p['statement']}"
              for p in result["properties"]]
    lines += ["", *NOTES.get(name, [])]
    lines += [f"Computed by `{_command(result)}`: at each rung of the "
              f"ladder ({' / '.join(_rungs(result))}), every environment of one source, then "
              "at the base rung, per property, the largest environments without its breaks; "
              f"at most {result['max_states']:,} states per search (a resource limit). The "
              f"base instance: {_instance(result['base_instance'])}. The committed answers "
              "are re-derived in the main job (`explore --lattice --check`: the "
              "single-source searches and the proofs; each committed witness file replayed "
              "and compared with what the writer writes for its trace).", ""]
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
        cut = [e["environment"] for e in result["explorations"] if not e["complete"]]
        why = (f": no complete search covers them (the searches of {', '.join(cut)} were cut "
               f"at {result['max_states']:,} states, a resource limit)") if cut else \
            ": no search covers them"
        parts.append(f"undecided under {counts['unknown']} of {total} environments{why}")
    return ". ".join(parts) if parts else "undecided"


def _break(result: dict[str, Any], prop: str, env: str, answer: dict[str, Any]) -> str:
    path = f"results/designs/{result['design']}/witnesses/{env}_{prop}.json"
    return f"{env} ([witness]({path}), {answer['steps']} steps, {answer['basis']})"


def _set_order(env: str) -> tuple[int, list[tuple[str, int, str]]]:
    ids = env.split("+")
    return len(ids), [source_order(i) for i in ids]


def _command(result: dict[str, Any]) -> str:
    """The command that wrote `result`: its sizes and state limit as committed."""
    sizes = ",".join(str(s) for s in result["sizes"])
    return DESIGN_COMMAND.format(name=result["design"], sizes=sizes,
                                 max_states=result["max_states"])


def _rungs(result: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys(e.get("rung_words", "") for e in result["explorations"]
                              if e.get("rung_words"))) or ["the base rung"]


def _instance(instance: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in instance.items() if v not in ((), []))
