"""S1 of an atomic read and S2 of the shared-memory design for every instance (`shm_proofs`):
proved with the release's knobs, each mutant makes its proof fail at the obligation its
mechanism carries (and the spec's own runs break S1 under the spec knob), and the certificate
holds on reachable spec states, whole small explorations and random walks that wrap and shift
laps. The release's split read breaks S1 under D3 where the atomic read cannot."""

from __future__ import annotations

from dataclasses import replace

from model_checks.designs import shm_proofs as sp
from spec.config import Content
from spec.designs.shm import SHM, ShmConfig, ShmState
from spec.designs.shm.actions import Check, ClearP0, Copy, Execute, ShmAction, Submit
from spec.designs.shm.config import ShmKnobs
from spec.designs.shm.properties import consistent_pairing, within_ring
from tests.designs import shm_abstraction as sa
from tests.designs.shm_states import explored, sized, walked
from tests.designs.shm_states import steps as walk_steps

EVERY_SOURCE = frozenset(sp.SOURCES)


def test_s1_and_s2_hold_for_every_instance() -> None:
    verdicts = sp.prove_every_instance()
    assert set(verdicts) == {"S1", "S2"}
    for prop, verdict in verdicts.items():
        assert verdict.proved, verdict.summary()
        assert verdict.property == prop and verdict.knobs == "the release"
        assert verdict.rlimit == sp.RLIMIT and 0 < verdict.peak < sp.RLIMIT // 10
        assert verdict.sources == sp.SOURCES
        assert "every instance" in verdict.summary()
    assert "slot_intact" in verdicts["S1"].certificate
    assert "chunk_order" in verdicts["S2"].certificate


def test_every_source_of_the_design_is_covered() -> None:
    assert {s.id for s in SHM.sources} == set(sp.SOURCES) == set(sa.sources_covered())


def _failed(prop: str, knobs: sp.RingKnobs) -> sp.ProofVerdict:
    verdict = sp.prove(prop, knobs, stop_at_first=True)
    assert not verdict.proved
    assert "undecided" not in verdict.failures[0].model  # z3 gave a model
    return verdict


def test_without_the_id_check_s1_fails_where_a_read_passes() -> None:
    verdict = _failed("S1", sa.NO_ID_CHECK)
    assert verdict.failures[0].obligation == "the certificate implies S1"
    assert "handle: physical" in verdict.failures[0].model


def test_without_the_space_check_s2_fails_at_a_put() -> None:
    verdict = _failed("S2", sa.NO_SPACE_CHECK)
    assert verdict.failures[0].obligation.endswith("under put")


def _run(config: ShmConfig, actions: list[ShmAction]) -> ShmState:
    state = SHM.initial(config)
    for action in actions:
        state = SHM.step(config, state, action)
    return state


def test_without_the_id_check_the_spec_breaks_s1() -> None:
    """a's handle in flight, the store cleared, b written at a's address, a's handle read:
    without the id check the worker serves b; the release's check raises."""
    a, b = Content("a"), Content("b")
    trace: list[ShmAction] = [Submit((a,)), Execute(0), ClearP0(), Submit((b,)), Check(0)]
    config = SHM.instance("O1", frozenset({"D3"}))
    mutant = replace(config, knobs=ShmKnobs(reader_checks_id=False))
    assert consistent_pairing(mutant, _run(mutant, [*trace, Copy(0)]))
    released = _run(config, trace)
    assert not consistent_pairing(config, released) and released.fault is not None


def test_the_split_read_breaks_s1_where_the_atomic_read_cannot() -> None:
    """The release's interleaving: the worker checks a's handle, P0 clears and writes b at
    a's address, the worker copies: b's object with a's placeholders, no fault. With the
    read as one step (`split_read=False`) no run of the same instance breaks S1."""
    from model_checks.explore.exploration import explore

    a, b = Content("a"), Content("b")
    trace: list[ShmAction] = [Submit((a,)), Execute(0), Check(0), ClearP0(), Submit((b,)),
                              Copy(0)]
    config = SHM.instance("O1", frozenset({"D3"}))
    served = _run(config, trace)
    assert served.fault is None and consistent_pairing(config, served)
    atomic = replace(config, knobs=ShmKnobs(split_read=False))
    assert explore(SHM, atomic).verdict("S1") == "holds"
    assert explore(SHM, config).verdict("S1") == "breaks"


def _check(config: ShmConfig, states: list[ShmState]) -> None:
    for state in states:
        assert sa.check_state(config, state) == [], state
        assert not within_ring(config, state)


def test_the_certificate_holds_on_an_explored_instance() -> None:
    config = SHM.instance("O1", EVERY_SOURCE)
    _check(config, explored(config, 1_500))
    without_c1 = SHM.instance("O1", frozenset({"D1", "D2", "D3"}))
    states = explored(without_c1, 1_000)
    assert any(sa.known_handles(s) and not s.issued for s in states)  # in flight only
    _check(without_c1, states)


def test_the_certificate_holds_on_walks_that_wrap_and_shift_laps() -> None:
    laps = sized({"D1", "D2", "C1"}, ring=12, readers=1, items=1)
    states = walked(laps, seed=3, walks=6, length=200)
    ring = laps.ring_bytes
    assert any(c.address - s.ring.data_start >= ring for s in states for c in s.ring.chunks)
    assert any(c.address % ring == 0 < c.address for s in states for c in s.ring.chunks)
    _check(laps, states)
    stale = sized({"D1", "D2", "D3", "D7", "D8", "D11", "C1"}, ring=9, readers=2, items=2)
    _check(stale, walked(stale, seed=1, walks=20, length=60))


def test_every_spec_step_is_a_sequence_of_abstract_actions() -> None:
    laps = sized({"D1", "D2", "C1"}, ring=12, readers=1, items=1)
    steps = walk_steps(laps, seed=3, walks=6, length=200)
    assert any(after.ring.id_start > before.ring.id_start and
               0 < after.ring.data_end < before.ring.data_end for before, _, after in steps)
    every = sized({"D1", "D2", "D3", "D7", "D8", "D11", "C1"}, ring=9, readers=2, items=2)
    for config, found in ((laps, steps), (every, walk_steps(every, seed=1, walks=20, length=60))):
        kinds = set()
        for before, action, after in found:
            assert sa.simulates(config, before, action, after) is None, (before, action)
            kinds.add(type(action).__name__)
        assert {"Submit", "Check", "Copy"} <= kinds
    before, action, after = next((b, a, t) for b, a, t in steps if t.memory != b.memory)
    moved = after.evolve(ring=replace(after.ring, data_end=after.ring.data_end + 1))
    assert sa.simulates(laps, before, action, moved) is not None
    torn = after.evolve(memory=tuple(replace(m, content=Content("z")) for m in after.memory))
    assert sa.simulates(laps, before, action, torn) is not None


def test_the_evaluator_sees_a_broken_state() -> None:
    """A slot partly overwritten (not reachable in the spec) breaks `slot_intact`; a chunk
    recorded past the buffer breaks `chunk_fits`: the concrete reading is not vacuous."""
    config = SHM.instance("O1", frozenset())
    state = _run(config, [Submit((Content("a"),))])
    torn = state.evolve(memory=tuple(replace(s, intact=False) for s in state.memory))
    assert any("slot_intact" in r for r in sa.check_state(config, torn))
    chunk = replace(state.ring.chunks[0], nbytes=config.ring_bytes + 1)
    wide = state.evolve(ring=replace(state.ring, chunks=(chunk,)))
    assert any("chunk_fits" in r for r in sa.check_state(config, wide))
