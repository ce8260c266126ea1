"""What settles a design's answers beyond its explored ladder, per design, declared once:
its all-instance proofs (a property proved for every instance under every environment of
the design's sources) and its explicit witnesses (breaks found on a larger instance than
the ladder's, each replayed on the spec before it counts)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from model_checks.designs.lattice import Explicit
from spec.config import Content
from spec.designs.shm import SHM
from spec.designs.shm.actions import Check, ClientHandle, Copy, Execute, Preempt, Submit
from spec.designs.shm.state import Handle


def _shm_proofs() -> dict[str, str]:
    """S2 (`shm_proofs`' S1 is an atomic read's, a lemma: the release's split read is
    settled by the restricted proofs and the lattice's witnesses)."""
    from model_checks.designs.shm_proofs import prove_every_instance

    return {prop: "proved for every instance (Z3: " + verdict.certificate + ")"
            for prop, verdict in prove_every_instance().items()
            if verdict.proved and prop != "S1"}


PROOFS: dict[str, Callable[[], dict[str, str]]] = {"shm": _shm_proofs}
"""Per design, the function that runs its all-instance proofs: property -> what proved it."""

def _shm_restricted() -> list[tuple[str, frozenset[str], str]]:
    from model_checks.designs.shm_restricted import restricted_proofs

    return restricted_proofs()


def _encoder_restricted() -> list[tuple[str, frozenset[str], str]]:
    from model_checks.designs.encoder_proofs import encoder_restricted

    return encoder_restricted()


def _path_restricted() -> list[tuple[str, frozenset[str], str]]:
    from model_checks.designs.encoder_proofs import path_restricted

    return path_restricted()


RESTRICTED: dict[str, Callable[[], list[tuple[str, frozenset[str], str]]]] = {
    "shm": _shm_restricted, "encoder": _encoder_restricted, "lru+encoder": _path_restricted}
"""Per design, the function that runs its all-instance proofs that hold under every
environment inside a given one: (property, that environment, what proved it)."""


def _shm_client_handle_frees_early() -> list[Explicit]:
    """A client sends back the handle of a chunk a request in flight also holds; P0 accepts
    it without counting it, so the readers' reads of it pay for the other request's: the
    chunk is freed while worker 1 has yet to read it, and a new chunk takes its place. S3,
    H1: worker 1's check fails. S1, S4: worker 1 checked before the new chunk came, and
    copies it for a, silently (three identities, five requests)."""
    environment = frozenset({"C1"})
    config = dataclasses.replace(SHM.instance("O1", environment), identities=("a", "b", "c"),
                                 max_requests=5)
    handle = Handle("a", 0, 0, 0, Content("a"))
    start = (Submit((Content("a"),)), Execute(0), Check(0), Copy(0), Check(1), Copy(1),
             Submit((Content("a"),)), ClientHandle(handle), Execute(0), Execute(0), Check(0),
             Copy(0), Check(0), Copy(0))
    later = (Submit((Content("b"),)), Submit((Content("c"),)))
    crash = (*start, *later, Check(1))
    silent = (*start, Check(1), *later, Copy(1))
    words = "3 identities, 5 requests (explicit witness)"
    return [Explicit(environment, prop, config, words, actions)
            for prop, actions in (("S3", crash), ("H1", crash), ("S1", silent),
                                  ("S4", silent))]


def _shm_preempted_request_frees_early() -> list[Explicit]:
    """With a multiprocess executor, request 0 (a) is read by both workers, preempted, and
    read by both again: four reads against a's two issued handles (request 1 hit a) times two
    workers, so P0 frees a while request 1 is still to be read; request 2 (b, then c) puts c
    over a's chunk. S3, H1: request 1's check then fails, the engine dies. S1, S4: worker 0
    checked request 1's handle before the put, and copies c for a, silently (three
    identities, three requests)."""
    environment = frozenset({"R1"})
    config = dataclasses.replace(SHM.instance("O1", environment), identities=("a", "b", "c"),
                                 max_requests=3)
    a, b, c = Content("a"), Content("b"), Content("c")
    crash = (Submit((a,)), Submit((a,)), Execute(0), Check(0), Copy(0), Check(1), Copy(1),
             Preempt(0), Check(0), Copy(0), Check(1), Copy(1), Submit((b, c)), Execute(0),
             Check(0))
    silent = (Submit((a,)), Submit((a,)), Execute(0), Execute(0), Check(0), Copy(0), Check(0),
              Check(1), Copy(1), Check(1), Copy(1), Preempt(0), Check(1), Copy(1),
              Submit((b, c)), Copy(0))
    words = "3 identities, 3 requests (explicit witness)"
    return [Explicit(environment, prop, config, words, actions)
            for prop, actions in (("S3", crash), ("H1", crash), ("S1", silent),
                                  ("S4", silent))]


def _shm_explicit() -> list[Explicit]:
    return [*_shm_client_handle_frees_early(), *_shm_preempted_request_frees_early()]


def _path_engine_death() -> list[Explicit]:
    from model_checks.designs.path_witnesses import explicit

    return explicit()


EXPLICIT: dict[str, Callable[[], list[Explicit]]] = {
    "shm": _shm_explicit, "lru+encoder": _path_engine_death}
"""Per design, its explicit witnesses."""
