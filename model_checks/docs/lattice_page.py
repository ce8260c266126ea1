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

from model_checks.docs.every_instance_page import section as every_instance_section
from model_checks.docs.lattice_reach import reach_section
from model_checks.docs.markdown import GENERATED, table
from model_checks.docs.snapshot import SnapshotError
from model_checks.kernel import result_files
from model_checks.kernel.verdict_records import CHECKERS as ALL_CHECKERS
from model_checks.kernel.verdict_records import EXPLORE_LATTICE
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
    """How the committed JSON was made, from the run it records (`run`: the command, its
    profile, explorations, states and workers). Its wall and CPU times are kept in the JSON
    but not rendered: they are one run's figures on one machine, not part of the result."""
    run = entry.get("run")
    if not isinstance(run, dict):
        raise LatticeFileError(f"{LATTICE}: no run record (command, profile, times); "
                               f"regenerate it with {LATTICE_COMMAND}")
    from model_checks.explore.lattice_profiles import LATTICE_PROFILES

    profile = LATTICE_PROFILES.get(run["profile"])
    if profile is None:
        raise LatticeFileError(f"{LATTICE}: no lattice profile named {run['profile']!r}")
    workers = ("a Dask cluster" if run.get("dask")
               else f"{run['processes']} worker process(es)")
    resumed = (f", {run['resumed_explorations']} of them kept from earlier parts of the run "
               "(`--resume`)" if run.get("resumed_explorations") else "")
    parts = run.get("parts") or []
    if parts:
        workers = f"{len(parts)} parts: " + ", ".join(
            f"{'+'.join(p.get('variants') or ['?'])} with {p.get('processes') or '?'} "
            f"process(es)" for p in parts)
    timing = f"run in {workers}" if parts else f"run with {workers}"
    return (f"`{run['command']} --json docs/results/lattice.json --out docs/results/lattice` "
            f"(the {run['profile']} lattice profile: {profile.words()}; options given on the "
            f"command override it): {run['explorations']:,} explorations{resumed}, "
            f"{run['cut']} cut by the state limit, {run['states']:,} states, {timing}; "
            f"{run['evidence']} replayed breaks of other checkers merged"
            + (f", {run['proofs']} all-instance proofs" if run.get("proofs") else ""))


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


def orphans(root: Path, entries: list[dict[str, Any]], witnesses: str = WITNESSES) -> list[str]:
    """Witness files in `witnesses` under `root` that no entry references (a stale run's
    leftovers)."""
    used = {Path(w["trace"]).name for e in entries for w in e["traces"]}
    return [f"{witnesses}/{p.name}" for p in result_files.json_files(root / witnesses)
            if p.name not in used]


def _words(drift: list[str]) -> str:
    if not drift:
        return "no drift at all"
    return " + ".join(f"{d} ({Drift(d).title})" for d in drift)


def _link(witness: dict[str, Any]) -> str:
    target = str(witness["trace"]).removeprefix("docs/")
    return f"[{witness['steps']}-step trace]({target})"


CHECKERS = {c.record: c.title for c in ALL_CHECKERS}


def _found(witness: dict[str, Any]) -> str:
    """Who found the shown trace, in which rung or instance, and where it held below."""
    checker = witness.get("checker", EXPLORE_LATTICE.record)
    if checker == EXPLORE_LATTICE.record:
        text = f"explorer, {witness.get('rung') or witness.get('instance')}"
    else:
        text = f"{CHECKERS.get(checker, checker)}, its instance: {witness.get('instance')}"
    others = [CHECKERS.get(c, c) for c in witness.get("found_by", []) if c != checker]
    if others:
        text += "; also found by " + ", ".join(dict.fromkeys(others))
    if witness.get("held_short") and witness.get("rung_short"):
        text += (f"; holds with {witness['held_short']}, breaks with "
                 f"{witness['rung_short']}")
    elif witness.get("held_short"):
        text += f"; the explorer holds it with {witness['held_short']}"
    for note in witness.get("notes", []):
        text += f"; {note}"
    return text


def _breaking(entry: dict[str, Any]) -> str:
    witnesses = {tuple(w["drift"]): w for w in entry["traces"]}

    def one(s: list[str], extra: str = "") -> str:
        w = witnesses[tuple(s)]
        return f"{_words(s)}{extra}: {_link(w)} ({_found(w)})"

    parts = [one(s) for s in entry["minimal_breaking"]]
    parts += [one(s, " (breaks; minimality unsettled)") for s in entry["unsettled_breaking"]]
    return "; ".join(parts)


def _provers(entry: dict[str, Any]) -> str:
    """Who proved it for every instance: Z3's parametric proof, or the argument named."""
    named = [c for c in entry.get("proved_by") or () if c != "z3-parametric"]
    return "; ".join(named) if named else "Z3's parametric proof"


def _argued(entry: dict[str, Any]) -> bool:
    """Every instance is settled by an argument from proofs (a prover named as an argument,
    `lattice_lru.FIRST_RESEND`), not by a solver's proof of the property itself."""
    provers = entry.get("proved_by") or ()
    return bool(provers) and all("argument" in c for c in provers)


def answer(entry: dict[str, Any]) -> str:
    """One property's answer in words: where it breaks (who found it, at which rung or in
    which instance), or up to which rung it holds, and how complete that is."""
    if entry.get("vacuous"):
        return f"vacuous under every environment: {entry['vacuous']}"
    if entry.get("proved_every_instance") and _argued(entry):
        return ("holds under every environment, for every instance by an argument from "
                f"all-instance proofs, itself no solver's ({_provers(entry)})" + _top(entry))
    if entry.get("proved_every_instance"):
        return ("holds under every environment, for all depths and every instance ("
                f"{_provers(entry)})" + _top(entry))
    if entry["holds_everywhere"]:
        return ("holds under every environment with "
                f"{entry.get('holds_everywhere_rung') or 'the instance'} (the exploration "
                "with every source on is complete there)")
    found = _breaking(entry)
    if found:
        text = f"breaks minimally under {found}"
    else:
        rung = entry.get("holds_up_to") or (entry.get("ladder") or ["the base rung"])[0]
        text = f"no breaking environment found with {rung}" + _top(entry)
    if entry["complete"]:
        return text + "; complete: every environment decided"
    return text + f"; {entry['undecided_count']} environment(s) undecided ({_undecided(entry)})"


def _top(entry: dict[str, Any]) -> str:
    """How far the exploration with every source on got."""
    if entry.get("top_reached"):
        return f"; every source on: explored completely with {entry['top_reached']}"
    if entry.get("top_cut"):
        return (f"; every source on: cut by the state limit ({entry['max_states']:,} states) "
                f"with {entry['top_cut']}")
    return ""


def _undecided(entry: dict[str, Any]) -> str:
    limit = entry["max_size"]
    cut = ["+".join(s) for s in entry["undecided_smallest"] if len(s) <= limit]
    text = (f"smallest undecided: {', '.join(cut)}, cut by the state limit; and "
            if cut else "")
    return text + f"environments of more than {limit} sources not above a breaking one"


WHAT = {
    "S1": "pairs a stale tensor (S1)", "S2": "exceeds the byte budget (S2)",
    "S3": "crashes or hangs (S3)", "S4": "serves content the client did not send (S4)",
    "H1": "treats as a hit an identity P1 does not hold (H1)",
    "L1": "resends a missed item as a reference instead of its data (L1)",
    "L2": "answers a client's resend with another miss (L2)",
    "L3": "fails a first retry with no new drift event after the miss (L3)",
    "L4": "leaves a request crashed, hung or out of retries instead of served or refused "
          "with a clear error (L4)",
}
"""Each property's break in plain words (the recovery properties L1-L4 in the client's
terms: a miss is retried by the client, `reference.retry`)."""


def _bare(what: str) -> str:
    """"pairs a stale tensor (S1)" as a question's verb phrase: "pair a stale tensor (S1)"."""
    verb, _, rest = what.partition(" ")
    base = {"pairs": "pair", "exceeds": "exceed", "crashes": "crash", "serves": "serve",
            "treats": "treat", "resends": "resend", "answers": "answer", "fails": "fail",
            "leaves": "leave"}.get(verb, verb)
    return f"{base} {rest}".replace(" or hangs", " or hang")


def plain(variant: str, entries: list[dict[str, Any]]) -> list[str]:
    """Per variant, every property of `WHAT` (S1-S4, H1, and recovery L1-L4) in one sentence
    each: the sources every minimal set shares, "together with any of" the rest; or how far
    it holds."""
    lines = []
    for e in entries:
        prop = e["property"]
        if prop not in WHAT:
            continue
        sets = [*e["minimal_breaking"], *e["unsettled_breaking"]]
        if not sets:
            lines.append(f"- Does {variant} {_bare(WHAT[prop])}? No checker found it: "
                         f"{answer(e)}.")
            continue
        common = sorted(set.intersection(*(set(s) for s in sets)), key=lambda d: int(d[1:]))
        rest = [[d for d in s if d not in common] for s in sets]
        head = f"- {variant} {WHAT[prop]} "
        if common and all(rest):
            head += (f"when {_words(common)} meets any of: "
                     + "; ".join(_words(r) for r in rest))
        else:
            head += "under any of: " + "; ".join(_words(s) for s in sets)
        lines.append(head + ".")
    return lines


def _narrow_note(first: dict[str, Any]) -> list[str]:
    """A bullet when the run's rungs are narrower than the profiles' family (one item per
    request, as outcomes kept from before the family was widened)."""
    if not any("1 item per request" in rung for rung in first.get("ladder", [])):
        return []
    return ["- This run's explorations are of a narrower family than the profiles' (one item "
            "per request, every content 1 byte: `--items 1 --reused-bytes 1`, the outcomes "
            "kept in its `--resume` file); the profiles' family (two items per request in "
            "every environment, D7's second contents at 2 bytes) reaches this page only "
            "through the breaks passed as `--evidence`, each named with its own rung."]


def lattice_page(entries: list[dict[str, Any]],
                 outcomes: list[dict[str, Any]] | None = None,
                 nightly: list[str] | None = None,
                 designs: list[str] | None = None) -> str:
    """The page: the plain answers, the all-instance section, the rungs the liveness
    answers reached (from the run's kept `outcomes`, where given), the long runs' sections
    (`nightly`, their lines, where given), per variant a table of answers, the other
    designs' sections (`designs`, their lines), and last how the key-replicated design's
    answers were produced (the command, the instance ladder and family)."""
    if not entries:
        raise LatticeFileError("the lattice result has no entries")
    first = entries[0]
    parts = [
        GENERATED, "", "# Minimal drift combinations that break each property", "",
        "For each variant and property: the smallest sets of drift sources under which the "
        "property breaks, each with the shortest replayed trace found (`python -m "
        "model_checks replay PATH`), the checker and the rung or instance that found it: "
        "shortest on that instance, a larger one may hold a shorter run; or how far it "
        "holds. A "
        "break stands under every environment containing its set; a proof for every instance "
        "under an environment holds under every environment inside it. "
        "`docs/questions.md` section 1 quotes this page; how it is searched, and where each "
        "answer comes from, is at the end of the page (\"How this page was produced\"). "
        "The variants V0-V4 are the key-replicated LRU design's; another design, with its own "
        "sources and properties, has a section of its own after them (\"Design `shm`\": "
        "vLLM's shared-memory object store).", "",
        "## In plain words", "",
    ]
    variants = list(dict.fromkeys(e["variant"] for e in entries))
    for variant in variants:
        parts += plain(variant, [e for e in entries if e["variant"] == variant])
    parts.append("")
    parts += every_instance_section(entries)
    if outcomes is not None:
        parts += reach_section(outcomes, variants, list(first.get("ladder", [])))
    parts += nightly or []
    for variant in variants:
        mine = [e for e in entries if e["variant"] == variant]
        parts += [f"## {variant}", "",
                  f"{mine[0]['explored_environments']} environments explored, "
                  f"{mine[0]['explored_states']:,} states.", ""]
        parts.append(table(["property", "answer"], [[e["property"], answer(e)] for e in mine]))
        parts.append("")
    parts += designs or []
    return "\n".join([*parts, *_provenance(first)])


def _provenance(first: dict[str, Any]) -> list[str]:
    """The page's last section: the command, the search's bounds and the instance family."""
    return [
        "## How this page was produced", "",
        "The key-replicated design's answers (V0-V4); each other design's section says how "
        "its own were produced.", "",
        "Over every checker's evidence: the lattice's explorer climbing an instance ladder, "
        "every replayed counterexample of Z3, Hypothesis, the per-cell explorer, the pair "
        "cells and the scenarios, and the all-instance proofs. How it is searched and why it "
        "may prune by monotonicity: `docs/explore.md`, section \"The drift lattice\".", "",
        f"Produced by {_produced_by(first)}; rendered from its JSON by "
        "`python -m model_checks docs`.", "",
        f"- Drift sources searched: {'+'.join(first['sources'])}; environments of at most "
        f"{first['max_size']} sources searched bottom-up, the one with every source on "
        f"first; at most {first['max_states']:,} states per graph (a resource limit).",
        "- The instance ladder (each rung covers the one before: a run of one is a run of "
        "the next): " + " / ".join(first.get("ladder", [])) + ".",
        f"- The instance family at the base rung: {first['instance']}.",
        *_narrow_note(first),
        "- An explorer's \"holds\" is for the rung it names, never for all instances; a "
        "break from another checker is for that checker's instance, and stands under every "
        "larger environment (its trace was replayed with every source added).", "",
    ]


def questions_answer(entries: list[dict[str, Any]]) -> str:
    """The region of questions.md section 1: H1, S1 and S3 per variant, from the lattice."""
    rows = []
    lines = []
    for variant in dict.fromkeys(e["variant"] for e in entries):
        mine = [e for e in entries if e["variant"] == variant and e["property"] in QUOTED]
        lines += plain(variant, mine)
        rows += [[e["variant"], e["property"], answer(e)] for e in mine]
    return "\n".join([
        QUESTIONS_BEGIN, "",
        "The minimal combinations of drift sources that break H1, S1 and S3, per variant, "
        "generated from the drift lattice (`drift-combinations.md`, which has every "
        "property, the instance ladder and the command), over every checker's replayed "
        "evidence. In plain words:", "", *lines, "", "In detail:", "",
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
