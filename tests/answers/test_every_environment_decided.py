"""What the README claims of the answers: S1-S4, H1 and L1-L3 are decided for all 2,048
environments of every variant (a replayed break inside, or a hold for every instance), and
L4 is not (its holds are bounded): the claim is checked against the shipped store."""

from __future__ import annotations

import itertools

from model_checks.answers import Reach, load
from spec import DRIFT_IDS, VARIANT_NAMES

DECIDED = ("S1", "S2", "S3", "S4", "H1", "L1", "L2", "L3")
ENVIRONMENTS = [e for n in range(len(DRIFT_IDS) + 1)
                for e in itertools.combinations(DRIFT_IDS, n)]


def test_every_environment_is_decided_for_every_instance() -> None:
    assert len(ENVIRONMENTS) == 2048
    store = load()
    open_cells = [(v, p, e) for v in VARIANT_NAMES for p in DECIDED for e in ENVIRONMENTS
                  if not (store.answer(v, e, p).breaks
                          or store.answer(v, e, p).reach is Reach.EVERY_INSTANCE)]
    assert open_cells == []


def test_l4_is_not_claimed_for_every_instance() -> None:
    store = load()
    bounded = [e for e in ENVIRONMENTS if not store.answer("V3", e, "L4").breaks]
    assert bounded and all(store.answer("V3", e, "L4").reach is not Reach.EVERY_INSTANCE
                           for e in bounded)
