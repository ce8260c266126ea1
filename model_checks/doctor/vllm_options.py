"""The option names vLLM 0.33.0's ``vllm serve`` (and ``python -m
vllm.entrypoints.openai.api_server``) accepts, so that the doctor refuses a misspelt option
instead of answering a deployment the line does not describe.

`KNOWN` is read from package data (`vllm-0.33.0-options.txt`), written from the release's
source by ``python -m model_checks.doctor.vllm_options`` (needs scripts/setup-vllm): every
field of `EngineArgs` and of the front end's argument classes as its ``--dashed`` option, and
every option literal the serve parser adds. The source is read as text (never imported: the
engine does not import on a CPU set-up). tests/vllm/ checks the committed list against the
installed release.
"""

from __future__ import annotations

import ast
import re
from importlib import resources
from pathlib import Path

from model_checks.kernel.exits import usage_exit

RELEASE = "0.33.0"
LIST = f"vllm-{RELEASE}-options.txt"

ARGS_CLASSES: dict[str, tuple[str, ...]] = {
    "engine/arg_utils.py": ("EngineArgs", "AsyncEngineArgs"),
    "entrypoints/common/cli_args.py": ("BaseFrontendArgs", "FrontendArgs"),
}
"""Source file (under the vllm package) -> the dataclasses whose fields are options."""

LITERAL_FILES = ("engine/arg_utils.py", "entrypoints/common/cli_args.py",
                 "entrypoints/cli/serve.py", "entrypoints/cli/main.py")
"""Source files whose option literals (``"--name"``, ``"-x"``) the serve parser adds."""

_OPTION = re.compile(r"--?[a-z0-9][a-z0-9-]*\Z")


def _fields(tree: ast.Module, names: tuple[str, ...]) -> set[str]:
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in names:
            found.update("--" + item.target.id.replace("_", "-") for item in node.body
                         if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                         and not item.target.id.startswith("_"))
    return found


def scan(vllm_dir: Path) -> list[str]:
    """Every option name of the release installed at `vllm_dir` (the vllm package folder)."""
    found: set[str] = set()
    for relative in sorted({*ARGS_CLASSES, *LITERAL_FILES}):
        path = vllm_dir / relative
        if not path.is_file():
            continue
        tree = ast.parse(path.read_text())
        found |= _fields(tree, ARGS_CLASSES.get(relative, ()))
        if relative in LITERAL_FILES:
            found.update(node.value for node in ast.walk(tree)
                         if isinstance(node, ast.Constant) and isinstance(node.value, str)
                         and _OPTION.match(node.value))
    return sorted(found)


def known() -> frozenset[str]:
    """The committed option names (package data)."""
    text = resources.files("model_checks.doctor").joinpath(LIST).read_text()
    return frozenset(line for line in text.splitlines() if line)


def accepts(name: str, options: frozenset[str]) -> bool:
    """Whether vLLM's parser takes `name` (an option as `serve_line.normalised` spells it,
    without its ``=value``): a known option, its ``--no-`` inverse, a dotted (JSON) key of a
    known option, or a prefix of one (an abbreviation vLLM may expand)."""
    base = name.split(".", 1)[0]
    if base in options or (base.startswith("--no-") and "--" + base[5:] in options):
        return True
    return any(option.startswith(base) for option in options)


def main() -> int:
    import vllm

    version = getattr(vllm, "__version__", "")
    if version != RELEASE:
        return usage_exit(f"got vllm {version}, expected vllm {RELEASE}")
    target = Path(__file__).with_name(LIST)
    target.write_text("\n".join(scan(Path(vllm.__file__).parent)) + "\n")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
