"""The asyncio front end (reference.aio): the example of docs/reference.md, interleaving
between the awaited steps (D1), failure atomicity at its processor call sites, and conformance
to the spec through its adapter (model_checks/conform/async_adapter.py), with a mutant the
conformance run catches."""

from __future__ import annotations

import asyncio
import doctest
import functools
import re
from pathlib import Path

import pytest
from ref_helpers import ITEM_BYTES, SerialProcessor, consistent, snapshot

import reference.aio
from model_checks.cli import main
from model_checks.conform.async_adapter import AsyncAdapter, factory
from model_checks.conform.lru_lockstep import Disagreement, raised, replay
from model_checks.conform.lru_lockstep.corpus import corpus
from model_checks.kernel.verdict_records import Verdict, read_records
from reference import (
    V2,
    V4,
    Engine,
    MissingMediaError,
    ProbedRequest,
    Request,
    RequestItem,
    TagSource,
)
from reference.aio import AsyncFrontEnd, InlineExecutor, retry_async, serve_async
from spec import V2 as SPEC_V2
from spec import VARIANT_NAMES

ADAPTER = "model_checks.conform.async_adapter:factory"
PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"


def test_the_module_example_runs() -> None:
    result = doctest.testmod(reference.aio, raise_on_error=False, verbose=False)
    assert result.attempted > 5 and result.failed == 0


def test_the_documented_asyncio_example_runs() -> None:
    """The asyncio example of docs/reference.md, executed as written (so it cannot drift)."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
    example = next(block for block in blocks if "AsyncFrontEnd" in block)
    namespace: dict[str, object] = {}
    exec(compile(example, "docs/reference.md", "exec"), namespace)
    assert namespace["served"] == [1.0, 2.0, 3.0]


def test_requests_interleave_between_probe_and_update() -> None:
    """D1 on the asyncio front end: request 1 probes a (hit), request 2 is served whole while
    request 1 is processing, evicting a; request 1's update then reprocesses a (V3)."""
    processor = SerialProcessor()
    front_end = AsyncFrontEnd(ITEM_BYTES, processor, tags=TagSource.for_tests(1),
                              executor=InlineExecutor())
    engine = Engine(ITEM_BYTES)

    async def main() -> None:
        await serve_async(front_end, engine, Request((RequestItem("a", 1),)))
        first = await front_end.probe(Request((RequestItem("a", 1),)))
        assert first.hits == {"a"}
        await serve_async(front_end, engine, Request((RequestItem("b", 2),)))  # evicts a
        message = await front_end.update(first)
        assert message.items[0].payload is not None  # the late miss, reprocessed and sent
        inputs = engine.receive(message)
        assert all(map(consistent, inputs))

    asyncio.run(main())
    assert processor.calls == [1, 2, 1]


def test_concurrent_requests_on_one_loop_with_a_thread_pool() -> None:
    """Many coroutines at once, processors in the default thread pool: every served item is
    consistent (S1), both caches keep their invariants, no request is left open."""
    front_end = AsyncFrontEnd(4 * ITEM_BYTES, SerialProcessor())
    engine = Engine(4 * ITEM_BYTES)

    async def one(index: int) -> None:
        request = Request(tuple(RequestItem(f"k{(index + j) % 6}", (index + j) % 6)
                                for j in range(2)))
        inputs = await retry_async(functools.partial(serve_async, front_end, engine), request,
                                   max_retries=5)
        assert all(map(consistent, inputs))

    async def main() -> None:
        await asyncio.gather(*(one(index) for index in range(60)))

    asyncio.run(main())
    front_end.sender.check_invariants()
    engine.receiver.check_invariants()
    assert front_end.outstanding() == () and front_end.probed() == ()


@pytest.mark.parametrize("site", ["probe", "late-miss update", "prepare"])
def test_a_raising_processor_changes_nothing(site: str) -> None:
    processor = SerialProcessor()
    fail_on: set[object] = set()

    def flaky(content: object) -> object:
        if content in fail_on:
            raise RuntimeError("processor failed")
        return processor(content)

    front_end = AsyncFrontEnd(4 * ITEM_BYTES, flaky, tags=TagSource.for_tests(1),  # type: ignore[arg-type]
                              executor=InlineExecutor())
    engine = Engine(4 * ITEM_BYTES)

    async def main() -> None:
        await serve_async(front_end, engine, Request((RequestItem("a", 1), RequestItem("b", 2))))
        probed = await front_end.probe(Request((RequestItem("a", 10),)))
        before = snapshot(front_end.sender), snapshot(engine.receiver), front_end.probed()
        if site == "probe":
            fail_on.add(30)
            with pytest.raises(RuntimeError):
                await front_end.probe(Request((RequestItem("a", 1), RequestItem("c", 30))))
        elif site == "late-miss update":
            front_end.sender.invalidate(["a"])
            before = snapshot(front_end.sender), snapshot(engine.receiver), front_end.probed()
            fail_on.add(10)
            with pytest.raises(RuntimeError):
                await front_end.update(probed)
        else:
            fail_on.add(30)
            with pytest.raises(RuntimeError):
                await front_end.prepare(Request((RequestItem("c", 30),)))
        after = snapshot(front_end.sender), snapshot(engine.receiver), front_end.probed()
        assert after == before and front_end.outstanding() == ()

    asyncio.run(main())


def test_retry_async_resends_a_lost_uuid_only_item_with_media() -> None:
    front_end = AsyncFrontEnd(4 * ITEM_BYTES, SerialProcessor(), executor=InlineExecutor())
    engine = Engine(4 * ITEM_BYTES)

    async def send(request: Request) -> object:
        return await serve_async(front_end, engine, request)

    async def main() -> None:
        with pytest.raises(MissingMediaError):
            await retry_async(send, Request((RequestItem("a"),)))
        served = await retry_async(send, Request((RequestItem("a"),)), media={"a": 3})
        assert len(served) == 1  # type: ignore[arg-type]

    asyncio.run(main())


def test_conform_async_front_end_passes_the_ci_profile(tmp_path: Path) -> None:
    """`python -m model_checks conform --adapter model_checks.conform.async_adapter:factory`."""
    out = tmp_path / "records.json"
    assert main(["conform", "--adapter", ADAPTER, "--json", str(out)]) == 0
    records = read_records(out)
    lockstep = [r for r in records if r.property == "lockstep"]
    assert lockstep and all(r.verdict is Verdict.HOLDS for r in lockstep)
    assert {r.variant for r in records} == set(VARIANT_NAMES)


class ReprocessingEverywhere(AsyncFrontEnd):
    """Mutant: late misses reprocessed in every variant (V2 must assert, as the spec says)."""

    async def update(self, probed: ProbedRequest) -> reference.Message:
        late = [i for i in probed.request.items
                if i.identity in probed.hits and i.identity not in self.sender]
        processed = dict(probed.processed)
        for item in late:
            processed[item.identity] = await self._process(item.content)
        probed = ProbedRequest(probed.request_id, probed.request, probed.hits, processed)
        return self.front_end.update(probed)


def test_conformance_catches_an_asyncio_front_end_mutant() -> None:
    scenario = next(s for s in corpus() if s.name == "probed-hit-lost-before-update")
    mutant = AsyncAdapter("reference-asyncio-reprocessing-everywhere",
                          front_end_class=ReprocessingEverywhere)
    with pytest.raises(Disagreement):
        raised(replay(scenario.config(SPEC_V2), mutant, scenario.script))
    raised(replay(scenario.config(SPEC_V2), factory(), scenario.script))  # the real one agrees


def test_async_front_end_variant_is_the_one_given() -> None:
    assert AsyncFrontEnd(8, SerialProcessor(), variant=V2).variant is V2
    assert AsyncFrontEnd(8, SerialProcessor()).variant is V4
