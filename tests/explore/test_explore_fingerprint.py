"""The stable fingerprint (`model_checks.explore.fingerprint`) is a function of the state
alone, in every process: two interpreters with different hash seeds give every state the same
fingerprint, where a digest of the state's `repr` (which lists a frozenset's members in hash
order) does not, so the distributed search could put one state in two partitions and store it
twice. The explorer has one such fingerprint: the local graph keeps Python's `hash`, which
never leaves its process, and offers no digest of `repr`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from model_checks.explore import graph, wire
from model_checks.explore.fingerprint import canonical_text, stable_fingerprint
from spec.state import P0Work

PROGRAM = """
import hashlib, json, re
from model_checks.explore.fingerprint import stable_fingerprint
from model_checks.explore.graph import build
from model_checks.explore.instance import explore_config
from model_checks.explore.wire import Codec
from spec import State, variant_named
graph = build(explore_config(variant_named("V0"), ("D6",), max_requests=2))
two_hits = [s for s in graph.states if re.search(r"frozenset\\(\\{'[ab]', '[ab]'\\}\\)", repr(s))]
print(json.dumps({
    "states": len(two_hits),
    "stable": [stable_fingerprint(s) for s in two_hits],
    "code_hash": [hash(Codec(State).encode(s)) for s in two_hits],
    "hash": [hash(s) for s in two_hits],
    "repr_digest": [hashlib.blake2b(repr(s).encode(), digest_size=8).hexdigest()
                    for s in two_hits],
}))
"""

SEEDS = ("0", "2")
"""Two hash seeds under which `repr(frozenset({'a', 'b'}))` lists a and b in either order
(CPython's string hash is a function of the seed)."""


def _run(seed: str) -> dict[str, list[object]]:
    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONHASHSEED": seed})
    result: dict[str, list[object]] = json.loads(out.stdout)
    return result


def test_fingerprints_agree_across_hash_seeds_where_repr_digests_do_not() -> None:
    first, second = (_run(seed) for seed in SEEDS)
    assert first["states"] == second["states"] and first["states"], \
        "V0 under D6 has states whose probe hit both a and b"
    assert first["stable"] == second["stable"]
    assert first["code_hash"] == second["code_hash"], "the owned search's partitions agree"
    assert first["hash"] != second["hash"], "the known-bad partition: Python's hash of a state"
    assert first["repr_digest"] != second["repr_digest"], \
        "the known-bad fingerprint: a digest of repr differs between the two processes"


def test_the_canonical_text_sorts_set_members_and_is_repr_otherwise() -> None:
    work = P0Work(frozenset({"b", "c", "a"}), (None, 1), (1, 0))
    assert "frozenset" not in canonical_text(work)
    assert canonical_text(work) == canonical_text(P0Work(frozenset("cab"), (None, 1), (1, 0)))
    assert stable_fingerprint(work) != stable_fingerprint(
        P0Work(frozenset({"b", "a"}), (None, 1), (1, 0)))
    plain = P0Work(frozenset(), (None,), ())
    assert canonical_text(plain) == repr(plain)


def test_one_stable_fingerprint_and_the_owned_search_uses_it() -> None:
    assert wire.stable_fingerprint is stable_fingerprint
    assert not hasattr(graph, "fingerprint"), "graph offers no second, unstable digest"
