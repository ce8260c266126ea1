"""`explore --instance`: an instance a user names, built by the one instance builder, searched
and judged as the explorer's own API judges it; exit 4 on a break, 0 on a hold, 2 on bad
input (one line naming the fix, nothing written; the bad arguments of every `explore` search
option that needs an instance, `--forget-ended` among them, are refused in one table here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.lru_judging.judge import Status, judge_all
from model_checks.explore.named_instance import InstanceTextError, parse
from model_checks.kernel.trace_file import replay_file
from model_checks.kernel.verdict_records import Verdict, read_records
from spec import Config, Content, ItemSize, environment, variant_named

TINY = "identities=2,requests=2,unfinished=1,items=1,retries=1,budget=2"
"""Small enough to search in a fraction of a second; V2 under D7 breaks S4 on it."""


def _explore(tmp_path: Path, variant: str, env: str, instance: str, *more: str) -> int:
    return main(["explore", "--variant", variant, "--environment", env, "--instance", instance,
                 "--json", str(tmp_path / "records.json"), "--out", str(tmp_path / "cx"),
                 *more])


def test_a_break_exits_4_with_its_shortest_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _explore(tmp_path, "V2", "D7", TINY) == 4
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("V2 D7 S4 "))
    assert f"on {TINY}: BREAKS, shortest counterexample" in line
    record = next(r for r in read_records(tmp_path / "records.json") if r.property == "S4")
    assert record.verdict is Verdict.COUNTEREXAMPLE
    assert f"{record.counterexample_length} steps" in line
    assert "instance: identities a,b; budget 2; 2 requests, 1 unfinished" in record.detail
    assert replay_file(Path(str(record.counterexample_path))).step == (
        record.counterexample_length)
    assert "states, depth" in out and "CPU-s" in out


def test_a_hold_exits_0_and_one_property_is_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _explore(tmp_path, "V2", "D7", TINY, "--property", "S2") == 0
    out = capsys.readouterr().out
    verdicts = [x for x in out.splitlines() if x.startswith("V2 D7 ")]
    assert verdicts == [f"V2 D7 S2 on {TINY}: holds (proved for this instance: every "
                        "reachable state judged)"]
    assert [r.property for r in read_records(tmp_path / "records.json")] == ["S2"]


def test_the_verdicts_are_the_explorers_on_the_same_instance(tmp_path: Path) -> None:
    """The command's verdicts and shortest lengths are `build` and `judge_all`'s on the
    configuration written out by hand (not through the builder)."""
    assert _explore(tmp_path, "V2", "D7", TINY + ",size=a:2/2") == 4
    by_hand = Config(identities=("a", "b"), budget=2, versions=2, variant=variant_named("V2"),
                     environment=environment("D7"), max_retries=1, max_in_flight=1,
                     max_requests=2, max_items=1,
                     sizes=(ItemSize(Content("a"), 2, 2), ItemSize(Content("b", 1), 2, 2)))
    expected = {j.property_id: (j.status.value, len(j.actions))
                for j in judge_all(build(by_hand, GraphOptions(max_states=100_000)))}
    found = {r.property: (r.verdict.value, r.counterexample_length or 0)
             for r in read_records(tmp_path / "records.json")}
    assert found == expected
    assert any(status == Status.COUNTEREXAMPLE.value for status, _ in found.values())
    for prop in ("S4", "H1", "L1", "L4", "I1"):  # judged alone: the same verdict
        _explore(tmp_path, "V2", "D7", TINY + ",size=a:2/2", "--property", prop)
        alone = read_records(tmp_path / "records.json")
        assert [(r.property, (r.verdict.value, r.counterexample_length or 0))
                for r in alone] == [(prop, expected[prop])]


def test_one_property_asked_stops_the_search_at_its_break_unless_told_not_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same break from the states up to its depth; the output says where the search
    stopped and that nothing else was judged; `--whole-graph` searches every state."""
    assert _explore(tmp_path, "V2", "D7", TINY, "--property", "S4") == 4
    stopped = capsys.readouterr().out
    early = read_records(tmp_path / "records.json")
    assert _explore(tmp_path, "V2", "D7", TINY, "--property", "S4", "--whole-graph") == 4
    whole = capsys.readouterr().out
    assert [(r.property, r.counterexample_length) for r in early] == [
        (r.property, r.counterexample_length) for r in read_records(tmp_path / "records.json")]
    depth = early[0].counterexample_length
    assert (f"depth {depth} (the search stopped at the end of depth {depth}, where S4 broke: "
            "states deeper not searched, no other property judged)") in stopped
    assert "stopped" not in whole
    states = [int(out.split(" states")[0].splitlines()[-1]) for out in (stopped, whole)]
    assert states[0] < states[1]


def test_the_text_round_trips_and_names_the_builders_fields() -> None:
    named = parse("budget=3,identities=4,requests=3,unfinished=2,items=2,retries=0,"
                  "size=c:3/3,size=b@1:2/2")
    assert parse(named.text()) == named
    family = named.family()
    assert family.identities == ("a", "b", "c", "d") and family.budget == 3
    assert (family.max_requests, family.max_in_flight, family.max_items,
            family.max_retries) == (3, 2, 2, 0)
    config = named.config(variant_named("V3"), ("D7", "D11"))
    assert ItemSize(Content("c"), 3, 3) in config.sizes
    assert ItemSize(Content("b", 1), 2, 2) in config.sizes


@pytest.mark.parametrize(("text", "fix"), [
    (TINY + ",colour=2", "unknown key 'colour'; the keys are identities"),
    ("identities=2,requests=2,items=1,retries=1,budget=2", "missing unfinished=N"),
    (TINY.replace("requests=2", "requests=two"), "requests='two' is not a whole number"),
    (TINY.replace("requests=2", "requests=0"), "requests='0' is not a whole number"),
    (TINY.replace("identities=2", "identities=27"), "from 1 to 26"),
    (TINY + ",budget=3", "budget= is given twice"),
    (TINY + ",items", "'items' is not KEY=VALUE"),
    (TINY + ",size=c3", "size='c3' is not IDENTITY[@VERSION]:P0/P1"),
    (TINY + ",size=c:0/1", "with positive bytes"),
    (TINY + ",size=a:1/1,size=a:2/2", "names a twice"),
])
def test_bad_text_is_refused_naming_the_fix(text: str, fix: str) -> None:
    with pytest.raises(InstanceTextError, match=r"^--instance: ") as error:
        parse(text)
    assert fix in str(error.value)


@pytest.mark.parametrize(("argv", "fix"), [
    (["--instance", TINY + ",colour=2"], "unknown key 'colour'"),
    (["--instance", TINY + ",size=c:1/1"], "size=c:1/1 names a content this instance does "
                                           "not have"),
    (["--instance", TINY + ",size=a:1/2"], "unequal sizes are size skew: enable D9"),
    (["--instance", TINY, "--property", "S9"], "--property 'S9': not a property"),
    (["--instance", TINY, "--retries", "2"], "drop --retries"),
    (["--instance", TINY, "--environment", "D1"], "exactly one --variant and one "
                                                  "--environment"),
    (["--property", "S1"], "--property needs --instance"),
    (["--forget-ended"], "--forget-ended needs --instance"),
    (["--whole-graph"], "--whole-graph needs --instance"),
    (["--instance", TINY, "--forget-ended", "--por"], "--forget-ended and --por are separate "
                                                      "searches"),
])
def test_bad_arguments_exit_2_in_one_line_writing_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], fix: str
) -> None:
    records = tmp_path / "records.json"
    code = main(["explore", "--variant", "V2", "--environment", "D7", "--json", str(records),
                 "--out", str(tmp_path / "cx"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and fix in err and len(err.strip().splitlines()) == 1, err
    assert not records.exists() and not (tmp_path / "cx").exists()


def test_a_state_limit_without_a_break_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No green without work: a search the state limit cut proves nothing it did not finish."""
    assert _explore(tmp_path, "V3", "none", TINY, "--max-states", "5") == 3
    out = capsys.readouterr().out
    assert "UNDECIDED" in out and "(state limit 5 reached)" in out
