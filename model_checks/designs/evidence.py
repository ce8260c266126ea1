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
from spec.designs.shm.actions import Check, ClientHandle, Copy, Execute, Submit
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


RESTRICTED: dict[str, Callable[[], list[tuple[str, frozenset[str], str]]]] = {
    "shm": _shm_restricted}
"""Per design, the function that runs its all-instance proofs that hold under every
environment inside a given one: (property, that environment, what proved it)."""


def _shm_client_handle_frees_early() -> list[Explicit]:
    """A client sends back the handle of a chunk a request in flight also holds; P0 accepts
    it without counting it, so the readers' reads of it pay for the other request's: the
    chunk is freed while one worker has yet to read it, a new chunk takes its place, and
    that worker's check fails (three identities, five requests)."""
    environment = frozenset({"C1"})
    config = dataclasses.replace(SHM.instance("O1", environment), identities=("a", "b", "c"),
                                 max_requests=5)
    handle = Handle("a", 0, 0, 0, Content("a"))
    actions = (Submit((Content("a"),)), Execute(0), Check(0), Copy(0), Check(1), Copy(1),
               Submit((Content("a"),)), ClientHandle(handle), Execute(0), Execute(0), Check(0),
               Copy(0), Check(0), Copy(0), Submit((Content("b"),)), Submit((Content("c"),)),
               Check(1))
    words = "3 identities, 5 requests (explicit witness)"
    return [Explicit(environment, prop, config, words, actions) for prop in ("S3", "H1")]


EXPLICIT: dict[str, Callable[[], list[Explicit]]] = {"shm": _shm_client_handle_frees_early}
"""Per design, its explicit witnesses."""
