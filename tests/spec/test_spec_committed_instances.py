"""Every instance the committed results name is rebuilt by the checkers' builders: each
explorer record's instance (its detail quotes `describe`), each explorer, Hypothesis and
lattice trace's configuration (`docs/results/`), equal as `Config`s. A builder that
changed an instance the results were computed on fails here."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from pathlib import Path

from model_checks.explore.cell_tasks import CellTask
from model_checks.explore.instance import (
    CI_LARGE_SHAPES,
    CI_SHAPES,
    NIGHTLY_SHAPES,
    describe,
)
from model_checks.explore.lattice_instance import Rung, lattice_config
from model_checks.kernel import itf, result_files
from model_checks.kernel.instance import WIDER_IN_FLIGHT, config_for
from model_checks.kernel.trace_file import config_of
from spec import Config, variant_named
from spec.drift import ROUTER

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"
SHAPES = tuple(dict.fromkeys((*NIGHTLY_SHAPES, *CI_SHAPES, *CI_LARGE_SHAPES)))
RUNG_WORDS = re.compile(r"(\d+) requests \((\d+) unfinished\), (\d+) retries, identities "
                        r"([a-z,]+), (\d+) items? per request( \(an identity may repeat\))?")


@cache
def explorer_instances(variant: str, env: tuple[str, ...]) -> tuple[Config, ...]:
    """The explorer's instance of every shape for a cell."""
    task = CellTask(variant_named(variant), env, out=Path())
    return tuple(task.config(shape) for shape in SHAPES)


def rung_of(words: str, reused_bytes: int) -> Rung:
    match = RUNG_WORDS.fullmatch(words)
    assert match, words
    requests, unfinished, retries, names, items, repeat = match.groups()
    return Rung(max_requests=int(requests), max_in_flight=int(unfinished),
                max_retries=int(retries), identities=len(names.split(",")),
                max_items=int(items), reused_bytes=reused_bytes, duplicates=bool(repeat))


def traces(checker: str) -> list[tuple[dict[str, object], Config]]:
    """The committed trace files of `checker`: each one's project metadata and config."""
    found = []
    for path in sorted([*RESULTS.glob("*/*.json"), *RESULTS.glob("*/*.json.gz")]):
        if path.parent.name == "conform-traces":
            continue  # kept as the fix check's inputs, from instances older than the families
        data = result_files.read(path)
        if itf.is_trace(data) and itf.project(data).get("checker") == checker:
            found.append((itf.project(data), config_of(data)))
    return found


def environment(meta: dict[str, object], config: Config) -> tuple[str, ...]:
    ids = tuple(meta["environment"])  # type: ignore[call-overload]
    return tuple(ROUTER if d == "D5" and config.engines > 1 else d for d in ids)


def test_every_explorer_record_names_a_rebuilt_instance() -> None:
    records = result_files.read(RESULTS / "records.json.gz")["records"]
    explored = [r for r in records if r["checker"] == "explore"]
    assert len(explored) > 800
    for record in explored:
        quoted = record["detail"].split("instance: ", 1)[1]
        built = {describe(c) for c in explorer_instances(record["variant"],
                                                          tuple(record["environment"]))}
        assert any(quoted.startswith(text + "; ") for text in built), record


def test_every_explorer_trace_config_is_rebuilt() -> None:
    found = traces("explore")
    assert found
    for meta, config in found:
        env = environment(meta, config)
        assert config in explorer_instances(str(meta["variant"]), env), meta


def test_every_hypothesis_trace_config_is_rebuilt() -> None:
    found = traces("hypothesis")
    assert found
    for meta, config in found:
        env = environment(meta, config)
        built = [config_for(config.variant, env, n) for n in (2, WIDER_IN_FLIGHT)]
        assert config in built, meta


def test_every_lattice_trace_config_is_rebuilt() -> None:
    found = traces("explore-lattice")
    assert len(found) > 200
    for meta, config in found:
        built = [lattice_config(config.variant, tuple(meta["environment"]),  # type: ignore[call-overload]
                                rung_of(str(meta["rung"]), reused)) for reused in (2, 1)]
        assert config in built, meta


def test_a_changed_instance_is_not_rebuilt() -> None:
    """Known-bad: a trace configuration with one retry more is no explorer instance."""
    meta, config = traces("explore")[0]
    wrong = replace(config, max_retries=config.max_retries + 1)
    assert wrong not in explorer_instances(str(meta["variant"]), environment(meta, config))
