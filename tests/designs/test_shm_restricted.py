"""S1 (of the split read), S3, H1 and U1 of the shared-memory design for every instance under
the environments they hold in (`shm_restricted`): proved there; a source outside makes each
proof fail at the obligation the lattice's break runs through; the certificates hold on
explored spec states of instances within those environments (and fail on states outside
them); and every spec step is a sequence of the abstract actions."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model_checks.designs import shm_proofs as sp
from model_checks.designs import shm_restricted as sr
from spec.designs.shm import SHM
from tests.designs import shm_restricted_abstraction as sra
from tests.designs.shm_states import explored, sized, walked
from tests.designs.shm_states import steps as walk_steps


@pytest.fixture(scope="module")
def verdicts() -> dict[str, sr.RestrictedVerdict]:
    return sr.prove_restricted_all()


def test_s1_s3_h1_and_u1_hold_under_their_environments(
        verdicts: dict[str, sr.RestrictedVerdict]) -> None:
    assert set(verdicts) == {"S1", "S3", "H1", "U1"}
    for prop, verdict in verdicts.items():
        assert verdict.proved, verdict.summary()
        assert verdict.environment == sr.ENVIRONMENTS[prop]
        assert verdict.rlimit == sr.RLIMIT and 0 < verdict.peak < sr.RLIMIT // 10
        assert "every instance" in verdict.summary()
    assert frozenset({"D1", "D2", "D7", "D8", "D11"}) == sr.S3_ENVIRONMENT
    assert frozenset(sp.SOURCES) - {"D2"} == sr.U1_ENVIRONMENT
    assert "counted" in verdicts["S3"].certificate and "paid" in verdicts["U1"].certificate
    assert "handle_chunk" in verdicts["S1"].certificate


def test_restricted_proofs_name_the_environment_they_cover(
        verdicts: dict[str, sr.RestrictedVerdict], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sr, "prove_restricted_all", lambda rlimit: verdicts)
    found = {prop: (environment, text) for prop, environment, text in sr.restricted_proofs()}
    assert set(found) == {"S1", "S3", "H1", "U1"}
    assert found["S1"][0] == found["S3"][0] == found["H1"][0] == sr.S3_ENVIRONMENT
    assert found["U1"][0] == sr.U1_ENVIRONMENT
    assert "D1+D2+D7+D8+D11" in found["S3"][1] and "C1+D1+D3+D7+D8+D11" in found["U1"][1]


@pytest.mark.parametrize(("prop", "source", "obligation"), [
    ("S1", "D3", "consecution of owed_live under clear"),
    ("S1", "C1", "consecution of counted under client"),
    ("S3", "D3", "consecution of owed_live under clear"),
    ("S3", "C1", "consecution of counted under client"),
    ("U1", "D2", "consecution of paid under drop"),
])
def test_a_source_outside_the_environment_fails_the_proof(prop: str, source: str,
                                                           obligation: str) -> None:
    environment = sr.ENVIRONMENTS[prop] | {source}
    verdict = sr.prove_restricted(prop, environment)
    assert not verdict.proved
    assert verdict.failures[0].obligation == obligation, verdict.summary()
    action = next(label for label, needs in sr.REQUIRES.items() if needs == source)
    assert all(f.obligation.endswith(f"under {action}")
               for f in verdict.failures)
    assert "undecided" not in verdict.failures[0].model
    assert "after the step" in verdict.failures[0].model


def test_a_counted_client_handle_keeps_s3() -> None:
    """The `client_handle_counts` knob: a client's handle counts in the quota, so C1 no longer
    breaks the counting (the release does not count it, `evidence`'s explicit witness)."""
    knobs = sr.RestrictedKnobs(client_handle_counts=True)
    assert sr.prove_restricted("S3", sr.S3_ENVIRONMENT | {"C1"}, knobs).proved


@pytest.mark.parametrize(("prop", "small"), [
    ("S1", sr.S3_ENVIRONMENT), ("S3", sr.S3_ENVIRONMENT),
    ("U1", frozenset({"D1", "D3", "C1"})),
])
def test_the_certificate_holds_on_explored_states(prop: str, small: frozenset[str]) -> None:
    """A breadth-first exploration (of an environment small enough to reach quiescent states
    with live chunks), and walks of the whole environment and of one that wraps laps."""
    environment = sr.ENVIRONMENTS[prop]
    config = replace(SHM.instance("O1", small, 1), readers=1)  # one reader: shallower reads
    states = explored(config, 2_000)
    assert any(sra.pending_of(config, s) for s in states)
    assert any(SHM.is_quiescent(config, s) and s.ring.chunks for s in states)
    whole = sized(environment, ring=9, readers=2, items=2)
    laps = sized(environment - {"D3"}, ring=12, readers=1, items=1)
    for cfg, found in ((config, states), (whole, walked(whole, 1, 20, 60)),
                       (laps, walked(laps, 3, 4, 150))):
        for state in found:
            assert sra.check_restricted(cfg, state, prop) == [], state
            if prop in ("S1", "S3"):
                assert state.fault is None


@pytest.mark.parametrize(("prop", "source", "part"), [
    ("S3", "D3", "owed_live"), ("S3", "C1", "counted"), ("U1", "D2", "paid"),
])
def test_the_certificate_fails_on_states_outside_the_environment(prop: str, source: str,
                                                                  part: str) -> None:
    config = SHM.instance("O1", sr.ENVIRONMENTS[prop] | {source}, 1)
    broken = {r.split(" ")[0] for s in explored(config, 1_500)
              for r in sra.check_restricted(config, s, prop)}
    assert part in broken


def test_every_spec_step_is_a_sequence_of_restricted_actions() -> None:
    """Every source at once (the actions are those of every environment), and a ring that
    wraps laps; a step whose slot reads are changed matches no sequence."""
    every = sized(frozenset(sp.SOURCES), ring=9, readers=2, items=2)
    laps = sized(frozenset({"D1", "D2", "C1"}), ring=12, readers=1, items=1)
    kinds: set[str] = set()
    for config, seed, walks, length in ((every, 1, 20, 60), (laps, 3, 4, 150)):
        for before, action, after in walk_steps(config, seed, walks, length):
            assert sra.restricted_simulates(config, before, action, after) is None, (before, action)
            kinds.add(type(action).__name__)
            if after.ring.id_start > before.ring.id_start:
                kinds.add("free")
    assert {"Submit", "Check", "Copy", "Reject", "ClientHandle", "ClearP0", "free"} <= kinds
    before, action, after = next(s for s in walk_steps(laps, 3, 1, 50)
                                 if type(s[1]).__name__ == "Copy" and s[2].memory)
    tampered = after.evolve(memory=tuple(replace(m, reads=m.reads + 1) for m in after.memory))
    assert "reads" in (sra.restricted_simulates(laps, before, action, tampered) or "")
