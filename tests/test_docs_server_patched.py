"""docs/vllm.md's patched server run: `server_section.load` reads the release's runs only,
`splice_patched` renders the patched run between its markers in the hand-written tail (and
leaves a tail without them as it is), a missed request reads as the engine's retryable miss."""

from __future__ import annotations

import json
from pathlib import Path

from model_checks.docs import server_section as section

RUN = {"witness": "docs/results/lattice/V2_D7_S1.json", "driven": True, "broke": False,
       "flags": ["--mm-processor-cache-gb", "0.0001"], "encoder_cache_reset": True,
       "steps": [{"step": 10, "action": "request 3: h.v0 (uuid only)", "outcome": "missed",
                  "status": 500, "message": "", "log": ["Multi-modal cache miss for x"]},
                 {"step": 10, "action": "request 3: h.v0 (resent with data after the miss)",
                  "outcome": "answered", "status": 200, "message": "", "log": []}]}


def test_the_release_section_reads_no_patched_run(tmp_path: Path) -> None:
    runs = tmp_path / section.RUNS
    runs.mkdir(parents=True)
    (runs / "run.json").write_text(json.dumps([{**RUN, "broke": True}]))
    (tmp_path / section.PATCHED).write_text(json.dumps([RUN]))
    assert [r["broke"] for r in section.load(tmp_path)] == [True]
    assert section.load_patched(tmp_path) == [RUN]


def test_the_patched_run_is_spliced_between_its_markers() -> None:
    tail = f"## A fix\n\ntext\n\n{section.PATCHED_BEGIN}\nold table\n{section.PATCHED_END}\nafter\n"
    spliced = section.splice_patched(tail, [RUN])
    assert "old table" not in spliced and spliced.endswith(f"{section.PATCHED_END}\nafter\n")
    assert "500, the engine's retryable miss" in spliced
    assert "| `lattice/V2_D7_S1.json` |" in spliced and "no break" in spliced
    assert section.splice_patched(spliced, [RUN]) == spliced
    assert "No committed run" in section.splice_patched(tail, [])


def test_a_tail_without_the_markers_is_kept() -> None:
    assert section.splice_patched("## A fix\n\ntext\n", [RUN]) == "## A fix\n\ntext\n"


def test_stale_content_reads_as_the_clients_reuse_and_the_run_as_no_break() -> None:
    stale = {**RUN, "steps": [{"step": 6, "action": "request 1: z.v1, g.v0",
                               "outcome": "stale-content", "status": 200,
                               "message": "the fresh server's answer with g.v1 for g.v0: the "
                               "content first sent under the reused uuid",
                               "log": []}]}
    (row,) = section.patched_table([stale])[2:]
    assert "200, stale content (the fresh server's answer with g.v1 for g.v0: the content " \
        "first sent under the reused uuid)" in row and "no break" in row
