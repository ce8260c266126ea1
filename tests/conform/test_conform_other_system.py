"""The harness on a system that is not ours: a small V1/V2 pair written from scratch on
`cachetools.LRUCache`, put under the same checks through its own adapter (docs/conformance.md,
"Writing an adapter for another system"). It conforms; with one of its knobs wrong it does not.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cachetools import LRUCache

from model_checks.cli import main
from model_checks.conform import adapter as api
from model_checks.conform import codec
from model_checks.conform.lru_lockstep.run import ConformRun, conform
from model_checks.conform.profiles import ConformProfile
from model_checks.kernel.verdict_records import Verdict, read_records
from tests.conform.replies import answer, invalidate


def _order(cache: LRUCache[str, Any]) -> list[str]:
    # cachetools keeps the LRU order name-mangled; an adapter has to read it somehow.
    order: dict[str, None] = cache._LRUCache__order  # type: ignore[attr-defined]
    return list(order)


def _put(cache: LRUCache[str, Any], key: str, value: Any) -> None:
    """Drop the old entry first, then cache if it fits (the spec's semantics)."""
    cache.pop(key, None)
    if cache.getsizeof(value) <= cache.maxsize:
        cache[key] = value


@dataclass
class _Shadow:
    size: int
    placeholders: tuple[int, int]


@dataclass
class ToyFrontEnd:
    setup: api.Setup
    index: int
    epoch: int = 0
    cache: LRUCache[str, _Shadow] = field(init=False)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def __post_init__(self) -> None:
        self.cache = LRUCache(self.setup.budget, getsizeof=lambda e: e.size)

    def probe(self, items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
        hits = {i.identity for i in items if i.identity in self.cache}
        missing = tuple(i.identity for i in items if i.identity not in hits and i.media is None)
        if missing:
            return api.ClientRejected(missing)
        # by position: an identity named twice has each occurrence's own content
        processed = {n: self.setup.process(i.media) for n, i in enumerate(items)
                     if i.identity not in hits and i.media is not None}
        return items, processed

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        items, processed = probed  # type: ignore[misc]
        for item in items:
            if item.identity in self.cache:
                self.cache[item.identity]  # a get makes it most recent
        wire = []
        for n, item in enumerate(items):
            entry = self.cache.get(item.identity)
            if entry is not None:
                wire.append(api.WireItem(item.identity, None, entry.placeholders, None))
                continue
            if n not in processed:
                return api.Fault("p0-assert", f"no cached item for {item.identity!r}")
            payload, placeholders = processed[n]
            _put(self.cache, item.identity, _Shadow(codec.payload_nbytes(payload), placeholders))
            wire.append(api.WireItem(item.identity, payload, placeholders, None))
        return api.WireMessage(self.epoch << 32 | next(self.ids), tuple(wire))

    def abandon(self, request_id: int) -> None:
        pass

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        invalidate(lambda identity: self.cache.pop(identity, None), missed)

    def clear(self) -> None:
        self.cache.clear()

    def restart(self) -> None:
        self.epoch += 1
        self.__post_init__()

    def shadow(self) -> tuple[api.ShadowEntry, ...]:
        return tuple(
            api.ShadowEntry(k, self.cache[k].size, self.cache[k].placeholders, None)
            for k in _order(self.cache)
        )


@dataclass
class ToyEngine:
    setup: api.Setup
    payload_wins: bool
    cache: LRUCache[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.cache = LRUCache(self.setup.budget, getsizeof=codec.payload_nbytes)

    def receive(self, message: api.WireMessage) -> api.Delivered:
        for item in message.items:
            if item.identity in self.cache:
                self.cache[item.identity]  # a get makes it most recent
        inputs, missed = [], []
        for item in message.items:
            cached = self.cache.get(item.identity)
            if item.payload is None:
                tensor = cached
            elif cached is not None and not self.payload_wins:
                tensor = cached  # V1: the cache wins
            else:
                _put(self.cache, item.identity, item.payload)
                tensor = item.payload
            if tensor is None:
                missed.append(item.identity)
            else:
                inputs.append(api.ModelInput(item.identity, tensor, item.placeholders))
        return answer(inputs, missed)

    def clear(self) -> None:
        self.cache.clear()

    def restart(self) -> None:
        self.__post_init__()

    def receiver(self) -> tuple[api.ReceiverEntry, ...]:
        return tuple(
            api.ReceiverEntry(k, codec.payload_nbytes(self.cache[k]), self.cache[k], None)
            for k in _order(self.cache)
        )

    def close(self) -> None:
        pass


@dataclass
class ToyAdapter:
    name: str = "toy-cachetools"
    wrong_payload_rule: bool = False
    variants: tuple[str, ...] = ("V1", "V2")

    def supports(self, variant: str) -> bool:
        return variant in self.variants

    def front_end(self, setup: api.Setup, index: int) -> ToyFrontEnd:
        return ToyFrontEnd(setup, index)

    def engine(self, setup: api.Setup) -> ToyEngine:
        wins = setup.variant == "V2"
        return ToyEngine(setup, wins != self.wrong_payload_rule)


PROFILE = ConformProfile("test", walks=2, length=20)


def test_conform_another_system_conforms_on_the_variants_it_has() -> None:
    adapter = ToyAdapter()
    assert isinstance(adapter, api.Adapter)
    outcome = conform(adapter, PROFILE)
    assert outcome.conforms, outcome.failure.report() if outcome.failure else ""
    assert {r.variant for r in outcome.records} == {"V1", "V2"}


@pytest.mark.parametrize("variant", ["V1", "V2"])
def test_conform_another_system_with_the_wrong_payload_rule_is_caught(variant: str) -> None:
    outcome = conform(ToyAdapter(wrong_payload_rule=True), PROFILE, ConformRun(variants=(variant,)))
    assert outcome.failure is not None


def toy() -> ToyAdapter:
    """The untagged pair, for the command line (`--adapter ...:toy`)."""
    return ToyAdapter()


def toy_claiming_v3() -> ToyAdapter:
    """The untagged pair claiming V3 as well (engine as V2's)."""
    return ToyAdapter(variants=("V1", "V2", "V3"))


TOY = "tests.conform.test_conform_other_system"


def test_conform_require_s1_fails_an_untagged_pair_that_conforms_to_v2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It conforms to V2 (exit 0 without --require), yet pairs a stale tensor exactly as V2
    does: --require S1 makes the command fail with the inherited-weakness exit (4) and
    prints the stale pairing, replayable."""
    assert main(["conform", "--adapter", f"{TOY}:toy", "--variant", "V2"]) == 0
    capsys.readouterr()
    out = tmp_path / "r.json"
    code = main(["conform", "--adapter", f"{TOY}:toy", "--variant", "V2", "--require", "S1",
                 "--json", str(out)])
    text = capsys.readouterr().out
    assert code == 4  # the inherited-weakness exit: not 0, and not a regression's 1
    assert "every step agreed" in text  # it does conform...
    assert "S1 consistent pairing [required]: INHERITED WEAKNESS on V2" in text  # ...unsafe
    assert "paired with placeholders" in text and "V2 breaks it too" in text
    assert text.rstrip().splitlines()[-1].startswith("RESULT: CONFORMS, BUT INHERITED WEAKNESS")
    trace = out.with_name("r.S1.trace.json")
    assert trace.exists()
    # the trace replays against the implementation and breaks S1 there again
    assert main(["conform", "--adapter", f"{TOY}:toy", "--replay", str(trace),
                 "--require", "S1"]) == 4
    assert "S1: BROKEN by the implementation" in capsys.readouterr().out
    safety = [r for r in read_records(out) if r.checker == "conformance-safety"
              and r.property == "S1"]
    assert safety and safety[0].verdict is Verdict.COUNTEREXAMPLE


def test_conform_an_untagged_pair_against_v3_gets_one_sentence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", f"{TOY}:toy_claiming_v3", "--variant", "V3"]) == 1
    text = capsys.readouterr().out
    assert "caught by tags" in text
    assert "the implementation sends and records no tags, but V3 tags every" in text
    assert "spec:" not in text.split("safety")[0]  # no tag-column diff
