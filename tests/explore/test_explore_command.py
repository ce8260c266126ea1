"""The explore command: verdict records with instance, states and diameter; vacuous where a
property cannot fail; counterexamples replayable, and traces of the matrix's instance too;
bad input is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.explore.graph import GraphOptions
from model_checks.kernel.instance import config_for
from model_checks.kernel.trace_file import actions_of, replay_file
from model_checks.kernel.verdict_records import Verdict, read_records
from spec import DRIFT_IDS, by_id, run, variant_named


def test_explore_cells_records_and_traces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, records = tmp_path / "cx", tmp_path / "records.json"
    code = main(["explore", "--variant", "V2", "--environment", "none", "--environment", "D7+D10",
                 "--jobs", "1", "--json", str(records), "--out", str(out)])
    assert code == 0, capsys.readouterr().out
    found = {(r.environment, r.property): r for r in read_records(records)}
    none_s1 = found[((), "S1")]
    assert none_s1.verdict is Verdict.VACUOUS and "one content per identity" in none_s1.detail
    proved = found[((), "S2")]
    assert proved.verdict is Verdict.PROVED and proved.bound is None
    # a proof for this instance, never read as all depths of the system
    assert "proved for this instance (every reachable state judged)" in proved.detail
    assert "all depths" not in proved.detail
    assert "states, diameter" in proved.detail and "instance: identities a,b" in proved.detail
    assert found[((), "L1")].verdict is Verdict.VACUOUS
    broken = found[(("D7", "D10"), "S4")]
    assert broken.verdict is Verdict.COUNTEREXAMPLE and broken.counterexample_path
    assert Path(broken.counterexample_path).name == "V2_D7+D10_S4.json"  # `cells.cell_label`
    replayed = replay_file(Path(broken.counterexample_path))
    assert replayed.step == broken.counterexample_length


def test_explorer_traces_are_traces_of_the_matrix_instance(tmp_path: Path) -> None:
    """The explorer's instance is a restriction of the matrix's: its counterexamples replay
    there, action by action, and break the same property."""
    records = tmp_path / "records.json"
    assert main(["explore", "--variant", "V1", "--environment", "D2", "--environment", "D7+D10",
                 "--jobs", "1", "--json", str(records), "--out", str(tmp_path)]) in (0, 1)
    traces = [r for r in read_records(records) if r.verdict is Verdict.COUNTEREXAMPLE]
    assert traces
    for record in traces:
        data = json.loads(Path(str(record.counterexample_path)).read_text())
        actions = actions_of(data)
        matrix = config_for(variant_named(record.variant), record.environment)
        assert by_id(record.property).check_trace(run(matrix, actions)) is not None


@pytest.mark.parametrize("argv", [
    ["explore", "--variant", "V9"],
    ["explore", "--environment", "D12"],
    ["explore", "--jobs", "0"],
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, "--json", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert not (tmp_path / "r.json").exists()


def test_state_limit_leaves_proofs_undecided() -> None:
    from model_checks.explore.graph import build
    from model_checks.explore.instance import explore_config
    from model_checks.explore.lru_judging.judge import Status, judge

    graph = build(explore_config(variant_named("V3"), ("D3",)), GraphOptions(max_states=50))
    assert not graph.complete
    assert judge(graph, by_id("S2")).status is Status.UNDECIDED


def test_a_property_undecided_on_a_cut_graph_is_decided_on_the_next_instance(
    tmp_path: Path,
) -> None:
    """The first instance's graph is cut by the state limit: its counterexample (H1) stands,
    with that instance on its record; every other property is decided on the next, smaller
    instance, whose record names it; nothing is left unknown."""
    from model_checks.explore.cell_tasks import CellTask, explore_cell
    from model_checks.explore.instance import Shape
    from spec import V1

    outcome = explore_cell(CellTask(V1, ("D1",), tmp_path, 150, (Shape(2), Shape(1, 1, 1)),
                                   False))
    by_prop = {r.property: r for r in outcome.records}
    assert outcome.complete and Verdict.UNKNOWN not in {r.verdict for r in outcome.records}
    assert by_prop["H1"].verdict is Verdict.COUNTEREXAMPLE
    assert "identities a,b; budget 2; 2 requests" in by_prop["H1"].detail
    assert "state limit 150 reached" in by_prop["H1"].detail
    assert by_prop["S3"].verdict is Verdict.PROVED
    assert "identities a; budget 2; 1 requests" in by_prop["S3"].detail
    assert outcome.configs["S3"] != outcome.configs["H1"]


def test_the_largest_environments_start_at_one_item_per_request() -> None:
    from model_checks.explore.command import PROFILES
    from model_checks.explore.instance import CI_LARGE_SHAPES, CI_SHAPES, shapes_for

    shapes, large = PROFILES["ci"].shapes, PROFILES["ci"].large_shapes
    assert shapes_for(DRIFT_IDS, shapes, large) == CI_LARGE_SHAPES
    assert shapes_for(("D3", "D7", "D9", "D11"), shapes, large) == CI_SHAPES
    assert all(s.max_items == 1 for s in CI_LARGE_SHAPES)
