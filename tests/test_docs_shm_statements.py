"""Every page and help text says of the shared-memory cache (`--mm-processor-cache-type shm`)
what the code does: the doctor answers it as design shm (`vllm_release.IMPLEMENTS` maps it
to a variant), so no page may say it is not modelled or that the doctor exits 5 for it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from model_checks.adapters import vllm_release
from model_checks.cli import build_parser
from model_checks.doctor.command import build
from model_checks.doctor.facts import Deployment

ROOT = Path(__file__).resolve().parent.parent
SHM = re.compile(r"\bshm\b|shared-memory")
# "this design does not model" is the design naming a topology outside it, not a denial
DENIED = re.compile(r"not modell?ed|(?<!this design )does not model|exits? 5\b|exit code 5\b")


def sentences(text: str) -> list[str]:
    """`text` cut into sentences (and lines of code blocks), whitespace joined."""
    joined = " ".join(text.split("\n"))
    return [s.strip() for s in re.split(r"(?<=[.;:!?])\s+|(?<=`)\s+#", joined) if s.strip()]


def contradictions(text: str) -> list[str]:
    """The sentences of `text` that say the shm cache is not modelled or exits 5."""
    found = []
    for line in text.splitlines():
        if SHM.search(line) and DENIED.search(line):
            found.append(line.strip())
    for sentence in sentences(text):
        if SHM.search(sentence) and DENIED.search(sentence) and "no supported release" not in (
                sentence) and "which no supported" not in sentence:
            found.append(sentence[:200])
    return found


def texts() -> dict[str, str]:
    pages = {p.relative_to(ROOT).as_posix(): p.read_text()
             for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}
    pages["python -m model_checks --help"] = build_parser().format_help()
    pages["python -m model_checks doctor --help"] = build_parser("doctor").format_help()
    return pages


def test_the_code_answers_shm_as_a_modelled_design() -> None:
    for release in vllm_release.releases():
        assert vllm_release.implements(release, "shm") is not None
        answered = build(Deployment(cache_type="shm"), release, "as asked")
        assert answered.modelled and answered.findings
        assert answered.exit_code(()) == 0


@pytest.mark.parametrize("where", sorted(texts()))
def test_no_page_says_shm_is_not_modelled(where: str) -> None:
    assert contradictions(texts()[where]) == []


@pytest.mark.parametrize("bad", [
    "The shared-memory cache (`--mm-processor-cache-type shm`): not modelled",
    "doctor --serve 'vllm serve MODEL --mm-processor-cache-type shm'  # exit 5: not modelled",
    "5 a cache design the project does not model (doctor: --mm-processor-cache-type shm)",
])
def test_a_contradicting_statement_is_found(bad: str) -> None:
    assert contradictions(f"Intro.\n{bad}\nMore.") != []
