"""The reference implementation in lockstep with the spec, in one process.

Every hand-written scenario (and every spec mutant's witness) runs in lockstep on every
variant; then the command line's `ci` profile; then the command's usage errors.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from model_checks.cli import main
from model_checks.conform import adapter as api
from model_checks.conform import codec
from model_checks.conform.lru_lockstep import Disagreement, Driving, raised, replay, shrink
from model_checks.conform.lru_lockstep.corpus import corpus
from model_checks.conform.reference_adapter import (
    ReferenceAdapter,
    ReferenceEngine,
    ReferenceFrontEnd,
    factory,
)
from model_checks.kernel.verdict_records import Verdict, read_records
from model_checks.scenarios.base import Scenario
from reference import Engine, FrontEnd, Message, Request
from spec import V3, VARIANT_NAMES, Config, Content

REFERENCE = "model_checks.conform.reference_adapter:factory"


def _cases() -> list[tuple[Scenario, str]]:
    return [(s, v.name) for s in corpus() for v in s.variants]


@pytest.mark.parametrize(
    ("scenario", "variant"), _cases(), ids=[f"{s.name}-{v}" for s, v in _cases()]
)
def test_conform_scenario_runs_in_lockstep(scenario: Scenario, variant: str) -> None:
    config = scenario.config(next(v for v in scenario.variants if v.name == variant))
    outcome = replay(config, factory(), scenario.script, Driving(settle=scenario.settle))
    raised(outcome)
    assert outcome.actions, "the script ran"


def test_conform_reference_passes_the_ci_profile(tmp_path: Path) -> None:
    out = tmp_path / "records.json"
    assert main(["conform", "--adapter", REFERENCE, "--json", str(out)]) == 0
    records = read_records(out)
    lockstep = [r for r in records if r.property == "lockstep"]
    assert lockstep and all(r.verdict is Verdict.HOLDS for r in lockstep)
    assert {r.variant for r in records} == set(VARIANT_NAMES)
    assert {r.checker for r in records} == {"conformance", "conformance-safety"}
    # the spec's own verdicts, judged on the lockstep traces, are recorded too
    assert any(r.property == "H1" and r.verdict is Verdict.COUNTEREXAMPLE for r in records)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("nope", "expected module:factory"),
        ("no_such_module_xyz:factory", "cannot import"),
        ("model_checks.conform.reference_adapter:missing", "no callable"),
        ("model_checks.conform.codec:payload_nbytes", "payload_nbytes"),
    ],
)
def test_conform_bad_adapter_is_a_usage_error(
    path: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["conform", "--adapter", path]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and expected in err and "Traceback" not in err


def test_conform_reference_sides_satisfy_the_protocols() -> None:
    adapter = factory()
    setup = api.Setup(2, "V3", 1, codec.process_media)
    assert isinstance(adapter, api.Adapter)
    assert isinstance(adapter.front_end(setup, 0), api.FrontEndSide)
    assert isinstance(adapter.engine(setup), api.EngineSide)


def test_conform_codec_round_trip_and_size_skew() -> None:
    config = Config(versions=1)
    media = codec.media_for(config, Content("b"))
    payload, placeholders = codec.process_media(media)
    assert codec.payload_nbytes(payload) == config.shadow_bytes(Content("b"))
    assert codec.content_of(config, placeholders[0]) == Content("b")
    code = codec.payload_code(payload)
    assert code is not None and codec.content_of(config, code) == Content("b")
    padded = codec.resize_payload(payload, 5)
    assert codec.payload_nbytes(padded) == 5 and codec.payload_code(padded) == code
    assert codec.content_of(config, 999) is None
    assert codec.payload_code({"image_grid": torch.tensor([1, 2], dtype=torch.uint8)}) is None


def test_conform_payloads_have_several_dtypes_and_placeholders_are_not_byte_counts() -> None:
    payload, (_, length) = codec.process_media(torch.tensor([7, 7]))
    assert {t.dtype for t in payload.values()} == {torch.float32, torch.int16, torch.uint8}
    assert payload["pixel_values"].dim() == 2
    assert codec.payload_nbytes(payload) == 7 and length != 7
    assert sum(t.numel() for t in payload.values()) != 7  # element count != byte count
    assert codec.payload_code(payload) == 7
    payload["patch_ids"] = payload["patch_ids"] + 1  # one tensor of another content: garbled
    assert codec.payload_code(payload) is None


class _GarblingEngine(ReferenceEngine):
    """Hands the model a tensor of another content than its placeholders (breaks S1)."""

    def receive(self, message: api.WireMessage) -> api.Delivered:
        result = super().receive(message)
        if not isinstance(result, api.Served):
            return result
        inputs = tuple(
            api.ModelInput(i.identity, {k: t + 16 for k, t in i.payload.items()}, i.placeholders)
            for i in result.inputs
        )
        return api.Served(inputs)


def test_conform_s1_is_checked_on_tensor_values() -> None:
    garbling = ReferenceAdapter("garbling")
    baseline = next(s for s in corpus() if s.name == "no-drift-baseline")
    with pytest.raises(Disagreement) as caught:
        raised(replay(baseline.config(V3), garbling, baseline.script, Driving(
            engine_factory=lambda s: _GarblingEngine(s, garbling.engine_class))))
    assert caught.value.caught_by == "S1"
    assert "paired with placeholders" in str(caught.value.impl_side)


def test_conform_shrink_keeps_the_check_and_shortens() -> None:
    garbling = ReferenceAdapter("garbling")

    def engines(setup: api.Setup) -> api.EngineSide:
        return _GarblingEngine(setup, garbling.engine_class)

    config = Config(variant=V3, max_requests=8)
    script = next(s for s in corpus() if s.name == "no-drift-baseline").script
    with pytest.raises(Disagreement) as caught:
        raised(replay(config, garbling, (*script, *script[:4]), Driving(engine_factory=engines)))
    found = caught.value
    small = shrink(config, garbling, found, engine_factory=engines)
    assert small.caught_by == found.caught_by
    assert small.step <= found.step
    assert "<-- here" in small.report()


def test_conform_json_records_name_the_failing_trace(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    code = main(["conform", "--adapter",
                 "model_checks.mutant_run.reference_mutants:mutant_reports_first_miss",
                 "--json", str(out)])
    assert code == 1
    data = json.loads(out.read_text())["records"]
    failing = [r for r in data if r["verdict"] == "counterexample" and r["property"] == "lockstep"]
    assert failing and Path(failing[0]["counterexample_path"]).exists()


class _RestartsTheEngineAfterItsUpdate(FrontEnd):
    """A front end whose `prepare` (probe and update) runs `after_update` before returning
    the message: the engine restarts between the update and the engine's receive, where the
    spec's `P1Restart` keeps the queued message (and where the history gate's watcher places
    a restart in flight: `model_checks.history.inflight.InFlight.section_found`)."""

    after_update: Callable[[], object] = staticmethod(lambda: None)

    def prepare(self, request: Request) -> Message:
        message = super().prepare(request)
        self.after_update()
        return message


def test_conform_a_message_sent_before_an_engine_restart_reaches_the_restarted_engine() -> None:
    """The end-to-end serve (`reference.pipeline.serve`) reaches the engine the side runs when
    the message is received, not the one it ran when the serve began: a reference to what
    only the engine before the restart held misses, as in the spec."""
    setup = api.Setup(2, "V3", 1, codec.process_media)
    engine = ReferenceEngine(setup, Engine)
    front = ReferenceFrontEnd(setup, 0, make=_RestartsTheEngineAfterItsUpdate)
    item = api.ItemIn("a", codec.media_for(Config(variant=V3), Content("a", 0)))
    assert isinstance(front.serve(engine, (item,)), api.Served)
    restarting = front.front_end
    assert isinstance(restarting, _RestartsTheEngineAfterItsUpdate)
    restarting.after_update = engine.restart
    assert front.serve(engine, (item,)) == api.Missed(("a",))  # the restarted engine is empty
    assert isinstance(front.serve(engine, (item,)), api.Served)  # invalidated: sent again
