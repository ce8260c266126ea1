"""The lattice's instance family is wide in every environment: each content of an identity has
its own size (D7's reused identity names content of another size) and requests carry several
items whether or not a drift source adds them. A configuration with both is explored under D7
alone, and what it shows there (P0's assertion, S3, in the variants without late-miss
reprocessing) is a finding no narrow instance can show."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.lattice import LatticeRequest
from model_checks.explore.lattice_command import LatticeUsageError, read_outcomes
from model_checks.explore.lattice_instance import REUSED_BYTES, Rung, lattice_config
from model_checks.explore.lattice_lru import LRU_LATTICE
from model_checks.explore.lattice_profiles import BASE_RUNG, LATTICE_PROFILES
from model_checks.explore.lru_judging.judge import Status, judge_all
from model_checks.kernel import result_files
from model_checks.kernel.trace_file import replay_file
from spec import Content, by_id, environment, lru, run, variant_named
from spec.transitions.client import Submit

SMALL = Rung(max_requests=2, max_in_flight=2, max_retries=2, identities=2)
"""Two identities: the smallest rung with both widenings (graphs of a few thousand states)."""


def test_every_profile_starts_from_a_wide_base_rung() -> None:
    """Every lattice profile's base rung carries two items per request, with no drift."""
    for profile in LATTICE_PROFILES.values():
        assert profile.base.max_items >= 2
        assert lattice_config(variant_named("V1"), (), profile.base).max_items >= 2
    assert BASE_RUNG.max_items == 2


def test_sizes_per_content_and_multi_item_requests_are_explored_under_d7_alone() -> None:
    """D7 alone: a's second content is another size than its first, requests carry two
    items, the graph is complete, and its runs use both (a two-item request, a's second
    content recorded at its own size)."""
    config = lattice_config(variant_named("V2"), ("D7",), SMALL)
    assert config.environment == environment("D7")
    assert config.max_items == 2
    first, second = Content("a", 0), Content("a", 1)
    assert (config.shadow_bytes(first), config.shadow_bytes(second)) == (1, REUSED_BYTES)
    graph = build(config, GraphOptions(max_states=60_000))
    assert graph.complete
    states = list(graph.states)
    assert any(len(r.items) == 2 for s in states for r in s.requests)
    assert any(e.size == REUSED_BYTES for s in states for shadow in s.shadows
               for e in lru.entries(shadow))


def test_the_wide_family_breaks_s3_under_d7_alone_where_the_narrow_one_cannot() -> None:
    """A reused identity's older, larger entry is a probed hit that the request's own,
    smaller insert evicts (the request fits the budget by its own contents' sizes): P0's
    assertion fires under D7 alone in V2; V3 reprocesses the late miss and keeps S3. With one
    item per request the same environment cannot show it."""
    verdicts = {}
    for name in ("V2", "V3"):
        for items in (1, 2):
            config = lattice_config(variant_named(name), ("D7",),
                                    Rung(2, 2, 2, 2, max_items=items))
            graph = build(config, GraphOptions(max_states=60_000))
            assert graph.complete
            s3 = next(j for j in judge_all(graph, with_lemmas=False) if j.property_id == "S3")
            verdicts[name, items] = s3.status
    assert verdicts["V2", 2] is Status.COUNTEREXAMPLE
    assert verdicts["V2", 1] is not Status.COUNTEREXAMPLE
    assert verdicts["V3", 2] is not Status.COUNTEREXAMPLE


def test_the_committed_outcomes_are_of_the_wide_family_and_refuse_a_narrow_ladder() -> None:
    """The committed outcomes were explored with two items per request at every rung and
    D7's second contents at 2 bytes: a request of that ladder resumes them, a narrow one
    (`--items 1 --reused-bytes 1`) is refused (a usage error)."""
    kept = Path(__file__).resolve().parents[2] / "docs" / "results" / "lattice-outcomes.json.gz"
    data = result_files.read(kept)
    wide = tuple(Rung(**r) for r in data["ladder"])
    assert all(r.max_items == 2 and r.reused_bytes == REUSED_BYTES for r in wide)
    narrow = tuple(replace(r, max_items=1, reused_bytes=1) for r in wide)
    request = LatticeRequest(("V2",), tuple(data["sources"]), 2, ladder=wide,
                             design=LRU_LATTICE, max_states=data["max_states"])
    assert read_outcomes(kept, request, LRU_LATTICE)
    with pytest.raises(LatticeUsageError, match="another ladder"):
        read_outcomes(kept, replace(request, ladder=narrow), LRU_LATTICE)


def test_outcomes_kept_before_the_family_was_widened_resume_only_a_narrow_ladder(
        tmp_path: Path) -> None:
    """A ladder without the family fields (outcomes kept before rungs had them) reads as
    one item per request and every content 1 byte: a narrow request resumes it, a wide one
    is refused."""
    kept = Path(__file__).resolve().parents[2] / "docs" / "results" / "lattice-outcomes.json.gz"
    data = result_files.read(kept)
    for rung in data["ladder"]:
        del rung["max_items"], rung["reused_bytes"]
    old = tmp_path / "old-outcomes.json"
    old.write_text(json.dumps(data))
    bare = tuple(Rung(**r) for r in data["ladder"])
    narrow = tuple(replace(r, max_items=1, reused_bytes=1) for r in bare)
    wide = tuple(replace(r, max_items=2, reused_bytes=REUSED_BYTES) for r in bare)
    request = LatticeRequest(("V2",), tuple(data["sources"]), 2, ladder=narrow,
                             design=LRU_LATTICE, max_states=data["max_states"])
    assert read_outcomes(old, request, LRU_LATTICE)
    with pytest.raises(LatticeUsageError, match="another ladder"):
        read_outcomes(old, replace(request, ladder=wide), LRU_LATTICE)


WIDE_EVIDENCE = Path(__file__).resolve().parents[2] / "docs" / "results" / "wide-family"


def test_the_committed_wide_family_evidence_replays_under_d7_alone() -> None:
    """Every break the lattice page takes from the wide family (`docs/results/wide-family`)
    replays on the spec under D7 alone, on a configuration of the profiles' family (two items
    per request, second contents at 2 bytes): S1 in V0 and V1, S3, H1 and L4 in V0-V2."""
    found = set()
    for path in sorted(WIDE_EVIDENCE.glob("*.json")):
        replayed = replay_file(path)
        config = replayed.trace.config
        assert replayed.step is not None, path
        assert config.environment == environment("D7") and config.max_items == 2
        assert config.shadow_bytes(Content("b", 1)) == REUSED_BYTES
        found.add((config.variant.name, replayed.property_id))
    assert {("V0", "S1"), ("V1", "S1"), ("V1", "S3"), ("V2", "S3"), ("V2", "H1")} <= found
    assert not {p for v, p in found if v == "V3"} - {"S4"}


def test_the_shortest_s3_break_under_d7_alone_replays_on_the_spec() -> None:
    """V2 under D7 alone, on a configuration with both widenings (two items per request, a's
    second content at 2 bytes): the explorer's shortest S3 counterexample runs on the spec
    action by action, breaks S3 at its last step and at no earlier one, uses a two-item
    request and a second content, and is as short as the committed wide-family evidence."""
    config = lattice_config(variant_named("V2"), ("D7",), SMALL)
    assert config.max_items == 2
    assert config.shadow_bytes(Content("a", 1)) != config.shadow_bytes(Content("a", 0))
    graph = build(config, GraphOptions(max_states=60_000))
    assert graph.complete
    s3 = next(j for j in judge_all(graph, with_lemmas=False) if j.property_id == "S3")
    assert s3.status is Status.COUNTEREXAMPLE
    violation = by_id("S3").check_trace(run(config, s3.actions))
    assert violation is not None and violation.step == len(s3.actions)
    submits = [a for a in s3.actions if isinstance(a, Submit)]
    assert any(len(a.items) == 2 for a in submits)
    assert any(item.version == 1 for a in submits for item in a.items)
    committed = replay_file(WIDE_EVIDENCE / "V2_D7_S3.json")
    assert committed.step == len(s3.actions)
