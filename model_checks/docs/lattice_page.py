"""docs/drift-combinations.md, and the generated answer docs/questions.md section 1 quotes.

Both are rendered from the committed lattice result, `docs/results/lattice.json` (written by
`LATTICE_COMMAND`, with its witnesses under `docs/results/lattice/`), never from a live run:
the lattice takes minutes, `docs --check` must stay fast. The page says, per variant and
property, the minimal sets of drift sources that break it, in words, with a link to each
witness trace; whether the answer is complete, and which environments are undecided.

`splice_questions` replaces the region between `QUESTIONS_BEGIN` and `QUESTIONS_END` of the
hand-written questions page with the lattice's answer for H1, S1 and S3, so that page
quotes the generated answer instead of keeping a hand-picked list.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from model_checks.docs.markdown import GENERATED, table
from model_checks.docs.snapshot import SnapshotError
from spec import Drift

LATTICE = "results/lattice.json"
WITNESSES = "results/lattice"
LATTICE_COMMAND = ("python -m model_checks explore --lattice --json docs/results/lattice.json "
                   "--out docs/results/lattice")
QUESTIONS = "questions.md"
QUESTIONS_BEGIN = "<!-- lattice answer: generated from docs/results/lattice.json -->"
QUESTIONS_END = "<!-- end of the lattice answer -->"
QUOTED = ("H1", "S1", "S3")


def _produced_by(entry: dict[str, Any]) -> str:
    """The command that wrote the committed JSON: its profile is the one whose search depth
    and state limit the JSON records (`explore --lattice --profile`)."""
    from model_checks.explore.lattice_command import LATTICE_PROFILES

    shape = (entry["max_size"], entry["max_states"])
    for profile, settings in LATTICE_PROFILES.items():
        if settings == shape:
            flag = "" if profile == "ci" else f" --profile {profile}"
            return f"`{LATTICE_COMMAND}{flag}` (the {profile} lattice profile)"
    raise LatticeFileError(f"{LATTICE}: no lattice profile searches {shape[0]} sources with "
                           f"{shape[1]:,} states per exploration")


class LatticeFileError(SnapshotError):
    """The committed lattice result cannot be read; the message is one line saying why."""


def load(root: Path) -> list[dict[str, Any]]:
    """The committed lattice entries under `root` (the docs folder)."""
    path = root / LATTICE
    try:
        entries = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise LatticeFileError(f"{path}: unreadable lattice result ({error})") from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise LatticeFileError(f"{path}: expected a list of objects")
    return entries


def orphans(root: Path, entries: list[dict[str, Any]]) -> list[str]:
    """Witness files under `root` that no entry references (a stale run's leftovers)."""
    used = {Path(w["trace"]).name for e in entries for w in e["traces"]}
    folder = root / WITNESSES
    found = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return [f"{WITNESSES}/{p.name}" for p in found if p.name not in used]


def _words(drift: list[str]) -> str:
    if not drift:
        return "no drift at all"
    return " + ".join(f"{d} ({Drift(d).title})" for d in drift)


def _link(witness: dict[str, Any]) -> str:
    target = str(witness["trace"]).removeprefix("docs/")
    return f"[{witness['steps']}-step trace]({target})"


def _breaking(entry: dict[str, Any]) -> str:
    witnesses = {tuple(w["drift"]): w for w in entry["traces"]}
    parts = [f"{_words(s)}: {_link(witnesses[tuple(s)])}" for s in entry["minimal_breaking"]]
    parts += [f"{_words(s)} (breaks; minimality unsettled): {_link(witnesses[tuple(s)])}"
              for s in entry["unsettled_breaking"]]
    return "; ".join(parts)


def answer(entry: dict[str, Any]) -> str:
    """One property's answer in words: where it breaks, and how complete that is."""
    if entry.get("vacuous"):
        return f"vacuous under every environment: {entry['vacuous']}"
    if entry["holds_everywhere"]:
        return "holds under every environment (the exploration with every source on is complete)"
    found = _breaking(entry)
    text = f"breaks minimally under {found}" if found else "no breaking environment found"
    if entry["complete"]:
        return text + "; complete: every environment decided"
    return text + f"; {entry['undecided_count']} environment(s) undecided ({_undecided(entry)})"


def _undecided(entry: dict[str, Any]) -> str:
    limit = entry["max_size"]
    cut = ["+".join(s) for s in entry["undecided_smallest"] if len(s) <= limit]
    text = (f"smallest undecided: {', '.join(cut)}, cut by the state limit; and "
            if cut else "")
    return text + f"environments of more than {limit} sources not above a breaking one"


def lattice_page(entries: list[dict[str, Any]]) -> str:
    """The page: how it was produced, the instance, then per variant a table of answers."""
    if not entries:
        raise LatticeFileError("the lattice result has no entries")
    first = entries[0]
    parts = [
        GENERATED, "", "# Minimal drift combinations that break each property", "",
        "For each variant and property: the smallest sets of drift sources under which the "
        "property breaks (every set one source smaller holds it), each with its shortest "
        "counterexample, a replayable trace (`python -m model_checks replay PATH`); or "
        "\"holds under every environment\". Answers BRIEF section 8, question 7; "
        "`docs/questions.md` section 1 quotes it. How it is searched and why it may prune by "
        "monotonicity: `docs/explore.md`, section \"The drift lattice\".", "",
        f"Produced by {_produced_by(first)} and rendered from its JSON by "
        "`python -m model_checks docs`.", "",
        f"- Drift sources searched: {'+'.join(first['sources'])}; every environment of at "
        f"most {first['max_size']} sources searched bottom-up, the one with every source on "
        f"first; at most {first['max_states']:,} states per exploration (a resource limit).",
        f"- Instance: {first['instance']}.",
        "- A property's answer holds for this instance only; a combination that needs more "
        "requests or items to break it (see `docs/explore.md`) shows as holding here.", "",
    ]
    for variant in dict.fromkeys(e["variant"] for e in entries):
        mine = [e for e in entries if e["variant"] == variant]
        parts += [f"## {variant}", "",
                  f"{mine[0]['explored_environments']} environments explored, "
                  f"{mine[0]['explored_states']:,} states.", ""]
        parts.append(table(["property", "answer"], [[e["property"], answer(e)] for e in mine]))
        parts.append("")
    return "\n".join(parts)


def questions_answer(entries: list[dict[str, Any]]) -> str:
    """The region of questions.md section 1: H1, S1 and S3 per variant, from the lattice."""
    rows = []
    for e in entries:
        if e["property"] in QUOTED:
            rows.append([e["variant"], e["property"], answer(e)])
    return "\n".join([
        QUESTIONS_BEGIN, "",
        "The minimal combinations of drift sources that break H1, S1 and S3, per variant, "
        "generated from the drift lattice (`drift-combinations.md`, which has every "
        "property, the instance and the command):", "",
        table(["variant", "property", "answer"], rows), "",
        QUESTIONS_END,
    ])


def splice_questions(root: Path, entries: list[dict[str, Any]]) -> str:
    """questions.md with its lattice region replaced by `questions_answer`."""
    path = root / QUESTIONS
    text = path.read_text()
    start, end = text.find(QUESTIONS_BEGIN), text.find(QUESTIONS_END)
    if start < 0 or end < start:
        raise LatticeFileError(f"{path}: no region between {QUESTIONS_BEGIN!r} and "
                               f"{QUESTIONS_END!r}; put them where the answer belongs")
    return text[:start] + questions_answer(entries) + text[end + len(QUESTIONS_END):]
