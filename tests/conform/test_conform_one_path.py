"""One `conform` command for every design: each design's entry in the one table
(`designs.lockstep_bindings.BINDINGS`) declares its runs and the options they read, and an
option a design's runs do not read is refused by one rule, in one line, naming the designs
that read it (`designs.conformance.refused`), before any adapter loads."""

from __future__ import annotations

import pytest

from model_checks.cli import main
from model_checks.conform_command import _defaults, runs_of
from model_checks.designs.conformance import COMMON, OwnRuns
from model_checks.designs.lockstep_bindings import BINDINGS, binding_of, entry_of

ADAPTER = "no.such:factory"
"""An adapter path that does not import: a run that gets past the options says so."""

GIVEN = {"json": ["--json", "out.json"], "processes": ["--processes", "2"],
         "profile": ["--profile", "nightly"], "variant": ["--variant", "V2"],
         "require": ["--require", "S1"], "keep_going": ["--keep-going"],
         "threads": ["--threads", "2"], "async_clients": ["--async-clients", "2"],
         "check_log": ["--check-log", "log.jsonl"], "steps": ["--steps", "5"]}
"""One way to give each option that is not common to every design's runs."""


def test_every_design_with_a_conformance_is_in_the_one_table() -> None:
    lru = entry_of("lru")
    assert isinstance(lru, OwnRuns) and binding_of("lru") is None
    assert binding_of("shm") is not None and runs_of(binding_of("shm")).options == {"steps"}
    assert set(BINDINGS) == {"lru", "shm"}


def test_every_option_but_the_common_ones_is_read_by_some_design() -> None:
    read = {o for name in BINDINGS for o in runs_of(BINDINGS[name]()).options}
    assert set(_defaults()) - COMMON == read == set(GIVEN)


@pytest.mark.parametrize("design", sorted(BINDINGS))
@pytest.mark.parametrize("dest", sorted(GIVEN))
def test_an_option_the_design_does_not_read_is_refused_in_one_line(
    design: str, dest: str, capsys: pytest.CaptureFixture[str],
) -> None:
    """Planted: each option under each design; the ones its runs read get past the options
    (to the adapter, which does not import, or the log, which does not exist)."""
    assert main(["conform", "--design", design, "--adapter", ADAPTER, *GIVEN[dest]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    reads = dest in runs_of(BINDINGS[design]()).options
    readers = [n for n in sorted(BINDINGS) if dest in runs_of(BINDINGS[n]()).options]
    flag = GIVEN[dest][0]
    refusal = f"--design {design}: {flag} apply to design {', '.join(readers)} only"
    assert (refusal in err) != reads, err


def test_a_design_whose_runs_need_an_adapter_says_so(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    assert main(["conform", "--design", "shm"]) == 2
    assert "--design shm needs --adapter MODULE:FACTORY" in capsys.readouterr().err
    assert main(["conform"]) == 2  # the LRU design's runs without an adapter: a log check
    assert "--adapter MODULE:FACTORY is required (except with --check-log)" in (
        capsys.readouterr().err)
