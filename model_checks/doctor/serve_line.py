"""A ``vllm serve ...`` line (or ``python -m vllm.entrypoints.openai.api_server ...``, the
same parser) read with the rules vLLM 0.33.0's `FlexibleArgumentParser` applies
(vllm/utils/argparse_utils.py), restated here so that the doctor never imports vLLM:

- ``--config FILE`` (that exact word, at most once; ``--config=FILE`` is stored and never
  read) names a YAML mapping whose keys are options without their dashes; its options are
  placed right after the model (or first), so an option on the line wins over the file,
  wherever it stands;
- in every word starting with ``--``, underscores become dashes in the name (up to its first
  ``.``), so ``--mm_processor_cache_type=shm`` is ``--mm-processor-cache-type shm``;
- ``--name=value`` is ``--name value``; a later occurrence wins; a bare ``--`` ends options.

Only the options the doctor reads are interpreted (`VALUES`, `FLAGS`); every other option
vLLM has is skipped, and an option vLLM does not have (a misspelling) is refused in one line
(`vllm_options`). vLLM's parser also expands unambiguous abbreviations of its options; the
doctor cannot tell which are unambiguous among all of vLLM's options, so an abbreviation of
an option it reads is refused in one line rather than guessed.
"""

from __future__ import annotations

import difflib
import importlib
import json
import re
import shlex
from pathlib import Path
from typing import Any

from model_checks.adapters import vllm_release
from model_checks.doctor import vllm_options


class ServeLineError(ValueError):
    """A ``vllm serve`` command line the doctor cannot read (one line: what and why)."""


VALUES: dict[str, str] = {"--api-server-count": "api_servers", "-asc": "api_servers",
                          "--data-parallel-size": "data_parallel", "-dp": "data_parallel",
                          "--mm-processor-cache-gb": "cache_gb",
                          "--tensor-parallel-size": "tensor_parallel",
                          "-tp": "tensor_parallel",
                          "--pipeline-parallel-size": "pipeline_parallel",
                          "-pp": "pipeline_parallel",
                          vllm_release.CACHE_OPTION: "cache_type"}
"""Option taking a value -> the `Deployment` field it sets."""

FLAGS: dict[str, tuple[str, bool]] = {
    "--enable-sleep-mode": ("sleep_mode", True), "--no-enable-sleep-mode": ("sleep_mode", False),
    "--disable-sleep-mode": ("sleep_mode", False),
    "--data-parallel-external-lb": ("external_lb", True), "-dpe": ("external_lb", True),
    "--no-data-parallel-external-lb": ("external_lb", False),
    "--enable-scale-out": ("scale_out", True), "--no-enable-scale-out": ("scale_out", False),
    "--tokens-only": ("tokens_only", True), "--no-tokens-only": ("tokens_only", False)}
"""Flag -> (the `Deployment` field it sets, to what): vLLM's boolean options with their
``--no-`` and ``--disable-`` inverses."""


API_SERVER = "vllm.entrypoints.openai.api_server"
"""The module vLLM 0.33.0 still runs as a server (deprecated, the same parser as `vllm serve`)."""

_PYTHON = re.compile(r"(.*/)?python(\d+(\.\d+)?)?\Z")


def words_of(line: str) -> list[str]:
    """The words after ``vllm serve`` or ``python -m vllm.entrypoints.openai.api_server``
    (`ServeLineError` for any other command)."""
    try:
        words = shlex.split(line)
    except ValueError as error:
        raise ServeLineError(f"cannot split the serve line: {error}") from None
    if words[:2] == ["vllm", "serve"]:
        return words[2:]
    if len(words) >= 3 and _PYTHON.match(words[0]) and words[1:3] == ["-m", API_SERVER]:
        return words[3:]
    raise ServeLineError(f"got {' '.join(words[:3])!r}, expected a line starting 'vllm serve' "
                         f"or 'python -m {API_SERVER}'")


def _load_yaml(path: str) -> Any:
    """`path` read by ``yaml.safe_load``, as vLLM reads it (PyYAML is imported only here)."""
    try:
        yaml = importlib.import_module("yaml")
    except ImportError:
        raise ServeLineError("reading --config needs PyYAML: pip install "
                             "'paired-caches[config]'") from None
    try:
        return yaml.safe_load(Path(path).read_text())
    except OSError as error:
        raise ServeLineError(f"--config {path}: {error.strerror or error}") from None
    except yaml.YAMLError as error:
        raise ServeLineError(f"--config {path}: not YAML ({str(error).splitlines()[0]})"
                             ) from None


def config_words(path: str) -> list[str]:
    """The options a ``--config`` file gives, as vLLM's `load_config_file` spells them: a true
    boolean is its flag, a false one its ``--no-`` flag where that exists, a list its items,
    a mapping JSON, anything else `str` of it."""
    if path.split(".")[-1] not in ("yaml", "yml"):
        raise ServeLineError(f"--config {path}: vLLM reads only .yaml or .yml files")
    loaded = _load_yaml(path)
    if not isinstance(loaded, dict):
        raise ServeLineError(f"--config {path}: expected a mapping of options")
    words: list[str] = []
    for key, value in loaded.items():
        if isinstance(value, bool):
            words += [f"--{key}"] if value else [f"--no-{key}"] * (f"--no-{key}" in FLAGS)
        elif isinstance(value, list):
            words += [f"--{key}", *map(str, value)] if value else []
        elif isinstance(value, dict):
            words += [f"--{key}", json.dumps(value)]
        else:
            words += [f"--{key}", str(value)]
    return words


def with_config(words: list[str]) -> list[str]:
    """`words` with a ``--config FILE`` replaced by the file's options, placed after the
    model when the line starts with one, else first: the line's own options come later and
    win."""
    if "--config" not in words:
        return words
    if words.count("--config") > 1:
        raise ServeLineError("more than one --config file (vLLM refuses it)")
    index = words.index("--config")
    if index == len(words) - 1:
        raise ServeLineError("--config has no value")
    given = config_words(words[index + 1])
    model = 1 if words and not words[0].startswith("-") else 0
    named = any(w == "--model" or w.startswith("--model=") for w in [*words, *given])
    if not model and not named:
        raise ServeLineError("no model: vLLM wants it right after 'vllm serve' or as model: "
                             "in the --config file")
    return words[:model] + given + words[model:index] + words[index + 2:]


def normalised(word: str) -> str:
    """`word` as vLLM reads it: in an option's name (``--`` up to its first ``.``, before any
    ``=``), underscores become dashes."""
    if not word.startswith("--"):
        return word
    name, equals, value = word.partition("=")
    head, dot, tail = name[2:].partition(".")
    return "--" + head.replace("_", "-") + dot + tail + equals + value


def _option(name: str) -> str | None:
    """The option `name` stands for, if the doctor reads it; `ServeLineError` for an
    abbreviation of one, a dotted (JSON) spelling of one, or an option vLLM does not have
    (`vllm_options`: a misspelt option is refused, never skipped)."""
    if name in VALUES or name in FLAGS:
        return name
    if name.startswith("--") and len(name) > 2:
        base = name.split(".", 1)[0]
        if "." in name and base in VALUES:
            raise ServeLineError(f"got {name}: vLLM reads a dotted option as a JSON object, "
                                 f"which {base} does not take")
        longer = sorted(o for o in (*VALUES, *FLAGS) if o.startswith(name))
        if longer:
            raise ServeLineError(f"got {name}, an abbreviation vLLM may expand to "
                                 f"{' or '.join(longer)}; write the option out")
        known = vllm_options.known()
        if not vllm_options.accepts(name, known):
            near = difflib.get_close_matches(base, sorted(known), n=1)
            meant = f"; did you mean {near[0]}?" if near else ""
            raise ServeLineError(f"got {base}, which vLLM {vllm_options.RELEASE} does not "
                                 f"have{meant}")
    return None


def _number(option: str, text: str) -> int | float:
    """The number `option` takes: GiB >= 0, or a count >= 1 (what vLLM starts with)."""
    gib = VALUES[option] == "cache_gb"
    try:
        number = float(text) if gib else int(text)
    except ValueError:
        raise ServeLineError(f"got {text!r} for {option}, expected a number") from None
    if gib and not number >= 0:  # negative or nan: vLLM's config refuses it
        raise ServeLineError(f"got {option} {text}, expected a number of GiB >= 0")
    if not gib and number < 1:
        raise ServeLineError(f"got {option} {text}, expected >= 1")
    return number


def value_of(option: str, text: str) -> int | float | str:
    """The value `option` takes from `text`, checked as vLLM checks it."""
    if VALUES[option] == "cache_type":
        try:
            return vllm_release.require_cache_type(text)
        except ValueError as error:
            raise ServeLineError(str(error)) from None
    return _number(option, text)


def settings(line: str) -> dict[str, object]:
    """The `Deployment` fields a ``vllm serve ...`` line sets, read as vLLM reads it."""
    words = [normalised(w) for w in with_config(words_of(line))]
    found: dict[str, object] = {}
    index = 0
    while index < len(words) and words[index] != "--":
        name, equals, inline = words[index].partition("=")
        option = _option(name) if name.startswith("-") else None
        if option in FLAGS:
            if equals:
                raise ServeLineError(f"got {words[index]}: {option} takes no value")
            field, value = FLAGS[option]
            found[field] = value
        elif option is not None:
            if not equals:
                index += 1
                if index >= len(words):
                    raise ServeLineError(f"{option} has no value")
                inline = words[index]
            found[VALUES[option]] = value_of(option, inline)
        index += 1
    return found
