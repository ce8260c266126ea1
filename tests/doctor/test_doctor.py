"""`python -m model_checks doctor` answers deployments as docs/drift-combinations.md does.

Three deployments (content-hash identities with one API server; client uuids with
rejections; sleep mode): for every safety property, the environments the doctor says break
it are exactly the page's minimal environments for V2 (the variant vLLM 0.33.0 implements)
that lie inside the deployment; nothing is written here that the page does not say.
"""

from __future__ import annotations

import re

import pytest
from drift_page import page_minimal

from model_checks.cli import main
from model_checks.doctor.answer import answer, judged_properties
from model_checks.doctor.facts import SOURCES, Deployment, environment
from spec import DRIFT_IDS

VARIANT = "V2"
DEPLOYMENTS = {
    "content-hash identities, one API server": (
        ["--client-uuids", "no", "--api-servers", "1"], Deployment(client_uuids=False)),
    "client uuids with rejections": (
        ["--client-uuids", "yes", "--rejections", "yes"],
        Deployment(client_uuids=True, rejections=True)),
    "sleep mode": (["--sleep-mode"], Deployment(sleep_mode=True)),
}


def page_answer(env: tuple[str, ...]) -> dict[str, set[frozenset[str]]]:
    """Per property, the page's minimal environments for V2 inside `env`."""
    return {prop: {e for e in page_minimal(VARIANT, prop) if e <= set(env)}
            for prop, _ in judged_properties()}


def printed_answer(out: str) -> dict[str, set[frozenset[str]]]:
    """Per property, the environments the doctor's output says break it."""
    joined = re.sub(r"\n {4,}", " ", out)
    found: dict[str, set[frozenset[str]]] = {}
    for prop, title in judged_properties():
        line = next(x for x in joined.splitlines() if x.startswith(f"  {prop} {title}: "))
        listed = line.split("BREAKS under ", 1)[1].split(";")[0] if "BREAKS" in line else ""
        found[prop] = {frozenset(e.split("+")) for e in listed.split(", ") if e}
    return found


@pytest.mark.parametrize("name", DEPLOYMENTS)
def test_doctor_answers_each_deployment_as_the_page_does(
    name: str, capsys: pytest.CaptureFixture[str],
) -> None:
    argv, deployment = DEPLOYMENTS[name]
    assert main(["doctor", "--vllm-version", "0.33.0", *argv]) == 0
    out = capsys.readouterr().out
    env = environment(deployment)
    assert f"the project's answer for {VARIANT} under {'+'.join(env)}" in out
    assert printed_answer(out) == page_answer(env)
    computed = {a.property_id: {frozenset(e) for e in a.breaks_under}
                for a in answer(VARIANT, env)}
    assert computed == page_answer(env)
    assert all(len(line) <= 100 for line in out.splitlines())
    assert "counters to alert on:" in out and "Multi-modal cache miss" in out


def test_doctor_the_three_answers_differ_where_the_page_does() -> None:
    """The comparison can fail: a doctor that dropped the client uuids would answer the
    second deployment as the first, and the page's answers for those differ (S1, S4)."""
    plain = page_answer(environment(DEPLOYMENTS["content-hash identities, one API server"][1]))
    uuids = page_answer(environment(DEPLOYMENTS["client uuids with rejections"][1]))
    assert not plain["S1"] and uuids["S1"] and plain != uuids
    sleep = page_answer(environment(DEPLOYMENTS["sleep mode"][1]))
    assert sleep["H1"] > plain["H1"] and not sleep["S1"]


def test_doctor_every_drift_source_has_its_vllm_fact() -> None:
    assert list(SOURCES) == list(DRIFT_IDS)


def test_doctor_several_api_servers_is_no_pairing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--vllm-version", "0.33.0", "--serve",
                 "vllm serve some/model --api-server-count 2 --enable-sleep-mode"]) == 0
    out = re.sub(r"\n +", " ", capsys.readouterr().out)
    assert "no paired cache here: 2 API server(s)" in out
    assert "MultiModalProcessorOnlyCache" in out and "lattice's answer" not in out


def test_doctor_a_serve_line_sets_what_it_names() -> None:
    from model_checks.doctor.facts import from_serve_line

    got = from_serve_line("vllm serve m --data-parallel-size=2 --data-parallel-external-lb "
                          "--mm-processor-cache-gb 8 --enable-sleep-mode --seed 3",
                          Deployment())
    assert (got.data_parallel, got.external_lb, got.cache_gb, got.sleep_mode) == (
        2, True, 8.0, True)
    assert got.pairing() == "lru"
    assert from_serve_line("vllm serve m -dp 2", Deployment()).pairing() == "processor_only"
    assert from_serve_line("vllm serve m --mm-processor-cache-gb 0",
                           Deployment()).pairing() == "none"


@pytest.mark.parametrize(("argv", "message"), [
    (["--api-servers", "0"], "error: got --api-servers 0, expected >= 1"),
    (["--serve", "python -m vllm"], "error: got 'python -m vllm', expected a line starting "
                                    "'vllm serve' or 'python -m "
                                    "vllm.entrypoints.openai.api_server'"),
    (["--serve", "vllm serve m --api-server-count"], "error: --api-server-count has no value"),
    (["--serve", "vllm serve m --mm-processor-cache-type disk"],
     "error: got --mm-processor-cache-type 'disk', expected lru or shm"),
    (["--vllm-version", "0.32.0"], "error: got vllm 0.32.0, expected vllm 0.33.0 (the "
     "releases this adapter was checked against; scripts/setup-vllm installs it)"),
])
def test_doctor_bad_input_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["doctor", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip().splitlines() == [message]


def test_doctor_a_bad_yes_no_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["doctor", "--client-uuids", "maybe"])
    assert stopped.value.code == 2
    assert "got 'maybe', expected yes or no" in capsys.readouterr().err
