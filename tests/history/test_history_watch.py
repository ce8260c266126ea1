"""The gate at its defaults (`--profile ci`) on pairs written without the harness's hooks:
a lock removed in any method is a race (found by the locks held, whether or not the
schedule interleaved the accesses), a check-then-act in the sender and an unlocked await
between probe and update fail once a clear runs in their window, a size table wrong for
int64 fails the dtype sweep, at every seed 1-5; the clean pairs pass; the reference mutant
with `invalidate` unlocked is killed at the defaults; the report says what it tested, and
an undecided search what it searched."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest
from history_helpers import conform, first_unexplained_seed

from model_checks.conform.reference_adapter import factory
from model_checks.history import report as cmd
from model_checks.history.dtypes import sweep
from model_checks.history.explain import Limit
from model_checks.history.schedule import Scheduler
from model_checks.history.watch import Watcher
from model_checks.mutant_run.factory import mutant_named
from spec import ALL_DRIFT
from tests.conform.serving_mutants import SERVING_MUTANTS
from tests.history.hookless_pair import TARGETS

DEPLOYED = "D1+D2+D3+D4+D5+D9+D10+D11"
"""A serving team's deployment: every drift source but interleaved updates (D6), a second
content per identity (D7) and requests over the budget (D8)."""
HOOKLESS = "tests.history.hookless_pair"
PLANTED = "tests.history.planted_pair"
SEEDS = [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow),
         pytest.param(4, marks=pytest.mark.slow), pytest.param(5, marks=pytest.mark.slow)]


def gate(adapter: str, mode: str, seed: int, *more: str) -> tuple[int, str]:
    """`conform --adapter ADAPTER --threads 4|--async-clients 4 --seed SEED` in the deployment's
    environment at the CI profile (the default)."""
    code, out, _ = conform("--adapter", adapter, f"--{mode}", "4", "--seed", str(seed),
                           "--environment", DEPLOYED, *more)
    return code, out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("target", TARGETS)
def test_a_lock_removed_in_any_method_is_a_race_at_every_seed(target: str, seed: int) -> None:
    method = target.split(".")[1]
    code, out = gate(f"{HOOKLESS}:factory_unlocked_{target.replace('.', '_')}", "threads",
                     seed)
    assert code == 1, out
    assert "RESULT: RACE" in out or "RESULT: NOT EXPLAINED" in out, out
    assert "RACE on " in out and "holding no lock" in out, out
    assert f" {method}" in out.split("holding no lock")[1].splitlines()[0], out  # its stack


@pytest.mark.parametrize("seed", SEEDS)
def test_a_check_then_act_in_the_sender_is_caught_at_every_seed(seed: int) -> None:
    code, out = gate(f"{PLANTED}:factory_check_then_act", "threads", seed)
    assert code == 1 and "RESULT: NOT EXPLAINED" in out, out
    assert "split front-end section on fe" in out and "the lock released and taken again" in out
    assert "first section:" in out and "probe" in out and "second section:" in out


@pytest.mark.parametrize("seed", [pytest.param(1, marks=pytest.mark.slow),
                                  pytest.param(2, marks=pytest.mark.slow), 3,
                                  pytest.param(4, marks=pytest.mark.slow),
                                  pytest.param(5, marks=pytest.mark.slow)])
def test_an_unlocked_await_between_probe_and_update_is_caught_at_every_seed(seed: int
                                                                            ) -> None:
    code, out = gate(f"{PLANTED}:async_factory_unlocked_await", "async-clients", seed)
    assert code == 1 and "RESULT: NOT EXPLAINED" in out, out
    assert "split front-end section on fe" in out and "(an await;" in out, out
    assert "serve_async" in out


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_receive_acting_across_a_restart_in_flight_is_caught_at_seeds_1_to_4(seed: int
                                                                              ) -> None:
    """The engine restarts between the two critical sections of the planted receive (where
    the second acts on what the first found): the restarted engine holds entries it never
    received, and a later reference served from them is unexplained."""
    code, out = gate(f"{PLANTED}:factory_split_receive", "threads", seed)
    assert code == 1 and "RESULT: NOT EXPLAINED" in out, out
    assert "RACE on" not in out and "split front-end section" not in out, out
    assert "engine restart" in out.split("first unexplained event")[1], out  # in the lanes


@pytest.mark.slow
def test_the_split_receive_is_undecided_at_seed_5_never_explained() -> None:
    """At seed 5 the 4-thread history holding the restart is beyond the search's limit and
    the 2-thread schedule of the seed restarts no receive: the run ends undecided (exit 3)."""
    code, out = gate(f"{PLANTED}:factory_split_receive", "threads", 5)
    assert code == 3 and "RESULT: UNDECIDED" in out, out


def test_the_split_receive_passes_without_restarts_between_its_sections(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What catches the planted receive is the restart in flight, not a race or a clear."""
    monkeypatch.setattr("model_checks.history.inflight.INSIDE_RECEIVE", 0)
    code, out = gate(f"{PLANTED}:factory_split_receive", "threads", 1)
    assert code == 0 and "RESULT: EXPLAINED" in out, out


def test_without_d10_no_restart_runs_in_flight_and_the_report_says_so() -> None:
    code, out, _ = conform("--adapter", f"{HOOKLESS}:factory", "--threads", "4", "--seed", "1",
                           "--environment", "D3")
    text = " ".join(out.split())
    assert code == 0 and "tested: in flight: 0 restarts while a serve was open" in text, out
    assert "a restart while a call of the restarted side is open" in text.split(
        "never tested:")[1]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_size_table_wrong_for_int64_is_caught_at_every_seed(seed: int) -> None:
    code, out = gate(f"{PLANTED}:factory_dtype_table", "threads", seed)
    assert code == 1 and "RESULT: SIZE MISMATCH" in out, out
    assert "SIZE: fe0, int64 [8]: int64-1 sized 32 bytes, torch counts 64" in out
    assert "SIZE: engine, int64" in out


def test_the_dtype_sweep_passes_the_reference_and_the_pairs() -> None:
    from tests.history.hookless_pair import factory as hookless
    from tests.history.planted_pair import async_factory, factory_dtype_table

    for adapter, variant in ((factory(), "V3"), (factory(), "V0"), (hookless(), "V2"),
                             (async_factory(), "V2")):
        swept = sweep(adapter, variant)
        assert swept.mismatches == () and {"int64", "bfloat16", "bool",
                                           "complex64"} <= set(swept.tried)
    found = sweep(factory_dtype_table(), "V2").mismatches
    assert {m.dtype for m in found} == {"int64"} and {m.side for m in found} == {"fe0",
                                                                                  "engine"}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("pair", [("hookless_pair:factory", "threads"),
                                  ("planted_pair:async_factory", "async-clients")],
                         ids=["threads", "async-clients"])
def test_the_clean_pairs_pass_at_every_seed(pair: tuple[str, str], seed: int) -> None:
    adapter, mode = pair
    code, out = gate(f"tests.history.{adapter}", mode, seed)
    assert code == 0, out
    assert "RESULT: EXPLAINED" in out and "RACE" not in out


@pytest.mark.slow
@pytest.mark.parametrize("threads", ["4", "8"])
def test_the_clean_pair_is_never_undecided_at_nightly(threads: str) -> None:
    code, out, _ = conform("--adapter", f"{HOOKLESS}:factory", "--threads", threads,
                           "--profile", "nightly")
    assert code == 0, out
    assert "50 histories" in out


@pytest.mark.slow
def test_an_undecided_schedule_is_decided_by_its_smaller_one() -> None:
    code, out, _ = conform("--adapter", f"{PLANTED}:factory_check_then_act", "--threads", "8",
                           "--seed", "1", "--environment", DEPLOYED)
    assert code == 1 and "RESULT: NOT EXPLAINED" in out, out
    assert "the same seed with 2 threads:" in out and "--threads 2 --seed 1" in out


@pytest.mark.slow
def test_the_asyncio_reference_needs_d6_below_v3() -> None:
    """Its front end awaits the processor between probe and update: a clear in that window
    is a late miss, which V3 reprocesses and V1 fails with P0's assertion (D6's behaviour)."""
    asynchronous = "model_checks.conform.async_adapter:factory"
    code, out, _ = conform("--adapter", asynchronous, "--async-clients", "4", "--seed", "1",
                           "--environment", "D3", "--variant", "V3")
    windows = re.search(r"(\d+)\s+clears run in their\s+windows", out)
    assert code == 0 and windows and int(windows.group(1)) > 0, out
    code, out, _ = conform("--adapter", asynchronous, "--async-clients", "4", "--seed", "1",
                           "--environment", "D3", "--variant", "V1")
    assert code == 1 and "FAULT p0-assert  << first unexplained" in out, out
    assert "split front-end section on fe0 (an await;" in out


def test_the_reference_mutant_with_invalidate_unlocked_is_killed_at_the_defaults() -> None:
    """The defaults: seed 0, the CI profile's two schedules, every drift source."""
    mutant = mutant_named(SERVING_MUTANTS, "invalidate-unlocked")
    schedules = range(0, cmd.SCHEDULES["ci"])
    assert first_unexplained_seed(mutant.adapter, mutant.base, ALL_DRIFT, 4,
                                  schedules) is not None
    assert first_unexplained_seed(factory(), mutant.base, ALL_DRIFT, 4, schedules) is None


def test_the_report_says_what_it_tested(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    code, out = gate(f"{HOOKLESS}:factory", "threads", 1, "--json", str(path))
    assert code == 0, out
    text = " ".join(out.split())
    assert "tested: 4 threads (V2), 2 schedules (seeds 1-2)" in text
    assert "shared locations watched (5):" in text and "fe0.cache.entries" in text
    assert "engine.cache._Cache__data" in text and "0 races" in text
    assert "engine clears between an update and its receive" in text
    assert "clear of fe0 x" in text and "restart of engine x" in text  # every side's events
    assert "payload dtypes float32" in text
    assert "sized in bytes against the budget, one call at a time: int64, complex64" in text
    assert "never tested:" in text and "the engine's refusal" in text
    restarts = re.search(r"tested: in flight: (\d+) restarts while a serve was open", text)
    assert restarts is not None and int(restarts.group(1)) > 0, text
    assert "clears while a call of the cleared side was open" in text
    assert "a restart while a call of the restarted side" not in text.split("never tested:")[1]
    tested = json.loads(path.read_text())["tested"]
    assert tested["in_flight_restarts"] == int(restarts.group(1))
    assert tested["open_clears"] > 0
    assert tested["schedules"] == 2 and tested["seeds"] == [1, 2]
    assert "fe0.cache.entries" in tested["locations"] and tested["races"] == 0
    assert tested["accesses"] > 0 and tested["preemptions"] > 0
    assert any("refusal" in line for line in tested["never"])
    assert "int64" in tested["swept"] and "bfloat16" in tested["swept"]


def test_an_undecided_search_says_what_it_searched(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cmd, "LIMIT", Limit(nodes=3))
    path = tmp_path / "run.json"
    code, out = gate(f"{HOOKLESS}:factory", "threads", 1, "--json", str(path))
    assert code == 3 and "RESULT: UNDECIDED" in out, out
    assert "searched: the history of V2, seed 1," in out and "the limit 3 nodes" in out
    assert "tested: 4 threads" in " ".join(out.split())
    assert "the same seed with 2 threads: undecided too" in out
    stopped = json.loads(path.read_text())["stopped"]
    assert stopped["result"] == "undecided" and stopped["limit"] == 3
    assert stopped["calls"] > 0 and stopped["explored"] >= 3


class _Shared:
    def __init__(self, locked: bool) -> None:
        self.lock = threading.Lock()
        self.table: dict[str, int] = {}
        self.loose: dict[str, int] = {}
        self.locked = locked

    def put(self, key: str) -> None:
        with self.lock:
            self.table[key] = 1
        self.loose[key] = 1  # never under a lock: its single operations are atomic

    def drop(self) -> None:
        if self.locked:
            with self.lock:
                self.table.clear()
        else:
            self.table.clear()


def _watched_run(locked: bool) -> Watcher:
    from model_checks.history.preempt import install_locks

    scheduler = Scheduler(0)
    shared = _Shared(locked)
    install_locks(shared, scheduler)
    watcher = Watcher(threads=True)
    watcher.watch("fe0", shared)
    watcher.clients = {"a", "b"}
    scheduler.monitor = watcher
    with watcher.active():
        scheduler.run([lambda: shared.put("x"), shared.drop], ["a", "b"])
    return watcher


def test_a_write_without_the_common_lock_is_a_race_whatever_the_order() -> None:
    watcher = _watched_run(locked=False)
    assert [r.location for r in watcher.races] == ["fe0.table"]
    race = watcher.races[0]
    assert {race.first.client, race.second.client} == {"a", "b"}
    assert {race.first.locks, race.second.locks} == {frozenset(), frozenset({"fe0.lock"})}
    assert any(site[2] == "drop" for site in race.first.stack + race.second.stack)
    assert watcher.unguarded() == ["fe0.loose"]


def test_the_same_writes_under_the_common_lock_are_no_race() -> None:
    watcher = _watched_run(locked=True)
    assert watcher.races == [] and watcher.accesses > 0
    assert watcher.locations() == ["fe0.loose", "fe0.table"]
