"""The Murphi translation (`model_checks.explore.murphi`) checked against the spec.

Without Rumur: what the generator refuses (one line each) and what it writes. With Rumur
(`slow`: the tests unpack it with `scripts/setup-rumur` where it is not): a counterexample
Rumur finds replays on the spec and breaks the same property at the same step; a hold is
a search that explored states; every translated property given its own verdict and shortest
length, as the explorer's; committed traces replay on the model, every step's state
compared; the reduced model (identities and slots scalarsets, media flags decided at the
first handling) gives the plain one's verdicts and lengths; and each planted
mistranslation (an unsound symmetry among them) is caught by the check it is planted for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks.explore import murphi
from model_checks.explore.murphi import Followed, Mistranslation, NotTranslated, model
from model_checks.explore.named_instance import parse
from model_checks.kernel import itf, result_files
from model_checks.kernel.trace_file import config_of, replay_data
from spec import Config, variant_named

ROW_1 = "identities=3,requests=3,unfinished=2,items=1,retries=2,budget=2"
"""The smallest instance of the comparison's six: V2 breaks S1 under D1+D7 in 12 steps."""
SMALL = "identities=2,requests=2,unfinished=2,items=2,retries=1,budget=2"
ROOT = Path(__file__).resolve().parents[2]
RESULTS = ("docs/results/traces", "docs/results/lattice", "docs/results/lattice-duplicates",
           "docs/results/lattice-single-source", "docs/results/lattice-nightly")


def _config(variant: str, env: tuple[str, ...], instance: str = ROW_1) -> Config:
    return parse(instance).config(variant_named(variant), env)


@pytest.mark.parametrize(("variant", "env", "words"), [
    ("V1", (), "variant V1 is not translated"),
    ("V0", ("D1",), "variant V0 is not translated"),
    ("V3", ("D3",), "drift D3 is not translated"),
    ("V2", ("D5",), "drift D5 is not translated"),
])
def test_untranslated_configurations_are_refused_in_one_line(
        variant: str, env: tuple[str, ...], words: str) -> None:
    with pytest.raises(NotTranslated) as refused:
        model(_config(variant, env))
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_an_untranslated_property_is_refused_in_one_line() -> None:
    with pytest.raises(NotTranslated, match=r"^property L4 is not translated[^\n]*$"):
        model(_config("V3", ()), ("S1", "L4"))


def test_the_model_states_the_asked_properties_and_every_submit_of_the_spec() -> None:
    config = _config("V2", ("D1", "D7"))
    text = model(config, ("S1", "L3"))
    assert 'invariant "S1"' in text and 'invariant "L3"' in text
    assert 'invariant "H1"' not in text and "h1_bad := true" not in text  # no H1 monitor
    assert f"NK: {len(murphi.submit_table(config))};" in text
    assert "scalarset(NR)" in text
    assert model(config, ("S1", "L3")) == text  # generated deterministically


def test_identities_are_a_scalarset_only_where_the_configuration_makes_them_interchangeable(
        ) -> None:
    """Sizes alike: a scalarset, no identity named by a constant, Submit's identities its
    parameters; one identity sized apart (D7's reused content): a plain range, as in a
    model that follows traces."""
    alike = _config("V3", ("D2",), SMALL)
    assert murphi.identities_interchangeable(alike)
    text = model(alike)
    assert "ident: scalarset(NID);" in text and "x = 1" not in text
    assert f"NK: {len(murphi.submit_shapes(alike))};" in text
    assert "ruleset s: slot; k: 1..NK; a1: ident; a2: ident do" in text
    apart = _config("V2", ("D1", "D7"))
    assert not murphi.identities_interchangeable(apart)
    assert "ident: 1..NID;" in model(apart)
    assert "ident: 1..NID;" in model(alike, symmetric=False)


def _rumur() -> None:
    from model_checks.explore.murphi_run import RumurMissing, ensure_rumur

    try:
        ensure_rumur()
    except RumurMissing as missing:
        pytest.fail(f"Rumur cannot be set up: {missing}")


@pytest.mark.slow
def test_a_rumur_counterexample_replays_on_the_spec(tmp_path: Path) -> None:
    from model_checks.explore.murphi_run import check, replay

    _rumur()
    config = _config("V2", ("D1", "D7"))
    found = check(config, ("S1",), workdir=tmp_path)
    assert found.broken == "S1" and found.states > 0
    trace = replay(config, found)
    assert len(trace.steps) == 12  # Rumur's breadth-first search: the shortest break


@pytest.mark.slow
def test_a_hold_is_a_search_over_states(tmp_path: Path) -> None:
    from model_checks.explore.murphi_run import check

    _rumur()
    found = check(_config("V3", (), SMALL), workdir=tmp_path)
    assert found.broken is None and found.states > 100


@pytest.mark.slow
def test_a_dropped_tag_check_is_caught_by_the_replay_on_the_spec(tmp_path: Path) -> None:
    from model_checks.explore.murphi_run import Mistranslated, check, replay

    _rumur()
    config = _config("V3", ("D1", "D7"))
    planted = check(config, ("S1",), workdir=tmp_path,
                    plant=Mistranslation(drop_tag_check=True))
    assert planted.broken == "S1"  # V3 holds S1: only the mistranslation breaks it
    with pytest.raises(Mistranslated, match="breaks S1 nowhere on the spec"):
        replay(config, planted)


@pytest.mark.slow
def test_each_property_gets_the_explorers_verdict_and_shortest_length(tmp_path: Path) -> None:
    """`check_each` against the explorer's whole graph, on an instance where three
    translated properties break at different depths and three hold; known-bad: one run of
    every invariant at once, which stops at the first break and says nothing of the others'
    lengths."""
    from model_checks.explore.graph import GraphOptions, build
    from model_checks.explore.lru_judging.judge import Status, judge_all
    from model_checks.explore.murphi_run import check, check_each

    _rumur()
    config = _config("V2", ("D1", "D7"), SMALL)
    judged = {j.property_id: len(j.actions) if j.status is Status.COUNTEREXAMPLE else None
              for j in judge_all(build(config, GraphOptions(max_states=100_000)),
                                 only=frozenset(murphi.PROPERTIES))}
    breaks = sum(length is not None for length in judged.values())
    assert 1 < breaks < len(judged)  # breaks at several depths, and holds
    each = check_each(config, workdir=tmp_path / "each")
    assert each.lengths == judged
    assert len(each.runs) == breaks + 1 and each.states > 0
    at_once = check(config, workdir=tmp_path / "at-once")
    assert {p: None for p in murphi.PROPERTIES if p != at_once.broken} != {
        p: n for p, n in judged.items() if p != at_once.broken}


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "env"), [("V3", ("D2",)), ("V2", ("D1", "D6"))])
def test_the_symmetric_model_gives_the_plain_models_verdicts_and_lengths(
        variant: str, env: tuple[str, ...], tmp_path: Path) -> None:
    """Identities and slots as scalarsets (Rumur's symmetry reduction) against both as
    plain ranges, every translated property: the same verdicts and shortest lengths (each
    counterexample replayed on the spec), on fewer states."""
    from model_checks.explore.murphi_run import check_each

    _rumur()
    config = _config(variant, env, SMALL)
    assert murphi.identities_interchangeable(config)
    symmetric = check_each(config, workdir=tmp_path / "symmetric")
    plain = check_each(config, workdir=tmp_path / "plain", symmetry=False)
    assert symmetric.lengths == plain.lengths
    assert any(n is not None for n in plain.lengths.values())  # breaks compared too
    assert symmetric.states < plain.states


@pytest.mark.slow
def test_identities_declared_interchangeable_where_sizes_differ_are_caught(
        tmp_path: Path) -> None:
    """The planted unsound symmetry: every identity a scalarset sized as the largest one
    where D7 reuses one identity with a larger content; a counterexample of that model
    does not break its property on the spec."""
    from model_checks.explore.murphi_run import Mistranslated, check_each

    _rumur()
    config = _config("V2", ("D1", "D7"), SMALL)
    assert not murphi.identities_interchangeable(config)
    with pytest.raises(Mistranslated, match="breaks S3 nowhere on the spec"):
        check_each(config, workdir=tmp_path, plant=Mistranslation(all_interchangeable=True))


def _committed() -> dict[Config, list[Followed]]:
    """Every committed trace of a configuration the model translates, by configuration."""
    groups: dict[Config, list[Followed]] = {}
    for folder in RESULTS:
        for path in result_files.json_files(ROOT / folder):
            data = result_files.read(path)
            if not itf.is_trace(data) or "design" in itf.project(data):
                continue
            prop = itf.project(data)["property"]
            config = config_of(data)
            try:
                murphi.check_translated(config, (prop,))
            except NotTranslated:
                continue
            groups.setdefault(config, []).append(Followed(replay_data(data).trace, prop))
    return groups


FEW = ("docs/results/traces/V3_D2_L2.json", "docs/results/traces/V2_D1_L3.json",
       "docs/results/traces/V2_D6_S3.json")


@pytest.mark.slow
@pytest.mark.parametrize("path", FEW)
def test_committed_traces_replay_on_the_model_and_a_kept_miss_does_not(
        path: str, tmp_path: Path) -> None:
    from model_checks.explore.murphi_run import follow

    _rumur()
    data = result_files.read(ROOT / path)
    followed = [Followed(replay_data(data).trace, itf.project(data)["property"])]
    assert follow(followed, tmp_path / "model") == []
    if followed[0].broken != "S3":  # the S3 trace takes no miss reply
        planted = follow(followed, tmp_path / "planted", Mistranslation(keep_missed=True))
        assert planted == followed


@pytest.mark.slow
def test_every_committed_trace_of_a_translated_configuration_replays_on_the_model(
        tmp_path: Path) -> None:
    from model_checks.explore.murphi_run import follow

    _rumur()
    groups = _committed()
    assert sum(len(g) for g in groups.values()) >= 50  # no green without traces
    for number, followed in enumerate(groups.values()):
        assert follow(followed, tmp_path / str(number)) == [], followed[0].trace.config


def test_setup_rumur_says_in_one_line_what_it_lacks(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess

    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "dirname", "grep", "mktemp", "rm", "mkdir", "env"):
        found = shutil.which(tool)
        assert found is not None
        (tools / tool).symlink_to(found)
    done = subprocess.run(
        [str(tools / "bash"), str(ROOT / "scripts" / "setup-rumur")], capture_output=True,
        text=True, check=False,
        env={**os.environ, "PATH": str(tools), "PAIRED_CACHES_RUMUR": str(tmp_path / "r")})
    assert done.returncode == 1
    assert done.stderr.strip() == ("setup-rumur: apt-get not found; rumur needs a Debian "
                                   "system with apt-get")
    assert not (tmp_path / "r").exists()  # nothing changed
