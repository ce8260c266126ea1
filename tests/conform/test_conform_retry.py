"""L1-L4 through the reference's own client retry helper: the lockstep's `Retry` (media on
every item) is what `reference.retry(..., media=...)` sends, and a settled lockstep trace needs
exactly as many retries as the helper does on the real objects."""

from __future__ import annotations

import pytest
import torch

from model_checks.conform import codec
from model_checks.conform.lru_lockstep import Driving
from model_checks.conform.lru_lockstep.corpus import corpus
from model_checks.conform.lru_lockstep.run import ConformRun, conform
from model_checks.conform.profiles import PROFILES
from model_checks.conform.reference_adapter import factory, variant_of
from reference import (
    Engine,
    FrontEnd,
    MultiModalCacheMissError,
    Placeholders,
    ProcessedItem,
    Request,
    RequestItem,
    retry,
    serve,
)
from spec import V3, Content, Drift
from tests.conform.finished_run import finished
from tests.conform.reference_named import by_name


def _processor(media: object) -> ProcessedItem:
    assert isinstance(media, torch.Tensor)
    payload, (offset, length) = codec.process_media(media)
    return ProcessedItem(payload, Placeholders(offset, length))


def test_conform_retry_helper_recovers_as_the_lockstep_does() -> None:
    scenario = next(s for s in corpus() if s.name == "engine-cleared-alone")
    config = scenario.config(V3)
    run = finished(config, factory(), scenario.script, Driving(settle=True))
    spec_retries = run.state.requests[1].retries
    assert run.state.requests[1].outcome is not None
    assert run.state.requests[1].outcome.value == "success"

    media = {"a": codec.media_for(config, Content("a"))}
    front_end = FrontEnd(config.budget, _processor, variant=variant_of("V3"))
    engine = Engine(config.budget, variant=variant_of("V3"))
    attempts: list[Request] = []

    def send(request: Request) -> object:
        attempts.append(request)
        return serve(front_end, engine, request)

    request = Request((RequestItem("a", media["a"]),))
    retry(send, request, max_retries=config.max_retries, media=media)
    engine.clear()  # the scenario's P1Clear (D3)
    inputs = retry(send, request, max_retries=config.max_retries, media=media)
    assert len(attempts) - 2 == spec_retries == 1  # one miss, one retry (L3)
    assert all(item.content is not None for item in attempts[-1].items)  # L1: data resent
    served = inputs[0]  # type: ignore[index]
    code = codec.payload_code(served.payload)
    assert code is not None and codec.content_of(config, code) == Content("a")


def test_conform_retry_helper_gives_up_after_max_retries() -> None:
    """With drift before every delivery (L3's assumption never holds), the helper stops after
    max_retries and the miss error reaches the client: L4 needs finitely many drift events."""
    config = next(s for s in corpus() if s.name == "engine-cleared-alone").config(V3)
    front_end = FrontEnd(config.budget, _processor, variant=variant_of("V3"))
    engine = Engine(config.budget, variant=variant_of("V3"))
    media = {"a": codec.media_for(config, Content("a"))}
    request = Request((RequestItem("a", media["a"]),))
    serve(front_end, engine, request)
    calls = 0

    def send(request: Request) -> object:
        nonlocal calls
        calls += 1
        message = front_end.prepare(request)
        engine.clear()  # a one-sided clear (D3) racing every attempt
        front_end.abandon(message.request_id)
        raise MultiModalCacheMissError(["a"])

    with pytest.raises(MultiModalCacheMissError):
        retry(send, Request((RequestItem("a", None),)), max_retries=2, media=media)
    assert calls == 3


def test_conform_v4_resends_conform_under_a_rejected_request() -> None:
    """Under D2 a rejected request re-records an identity P1 never got; V4's resend reads
    nothing from the shadow, so the reference conforms and keeps L1 and L3."""
    outcome = conform(factory(), PROFILES["ci"],
                      ConformRun(variants=("V4",), environment=frozenset({Drift.D2})))
    assert outcome.conforms and outcome.checked == ["V4"]


def test_conform_catches_a_v4_resend_that_reads_the_shadow() -> None:
    """The mutant whose resend still sends references for what the shadow holds disagrees
    with V4's spec at the resend's handling step, under D2 alone."""
    mutant = by_name("p0-resend-reads-shadow")
    assert mutant.base == "V4"
    outcome = conform(mutant.adapter, PROFILES["ci"], ConformRun(environment=frozenset({Drift.D2})))
    assert not outcome.conforms and outcome.failure is not None
    report = outcome.failure.report()
    before, _, _ = report.partition("<-- here")
    flagged = before.splitlines()[-1]  # the step the spec and the mutant disagree at
    assert "retry(rid=" in before and "p0_handle(rid=" in flagged, report
