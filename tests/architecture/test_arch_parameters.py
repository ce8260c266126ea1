"""No function of model_checks/ takes more than `MAX_PARAMETERS` parameters, read from the
source with `ast`: a checker's options travel as one typed value (as stateright's checkers
take one builder), not as a long list of keywords. Parameters count as positional-only,
positional and keyword-only ones, plus `*args` and `**kwargs`, not counting a leading
`self` or `cls`. The check is also run on planted sources, to show it can fail.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "model_checks"
MAX_PARAMETERS = 6


def _sources() -> Iterator[tuple[str, str]]:
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        yield path.relative_to(ROOT).as_posix(), path.read_text()


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The parameters of `node`, a leading `self` or `cls` left out."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    count = len(positional) + len(args.kwonlyargs)
    count += (args.vararg is not None) + (args.kwarg is not None)
    if positional and positional[0].arg in ("self", "cls"):
        count -= 1
    return count


def long_signatures(name: str, source: str, limit: int = MAX_PARAMETERS) -> list[str]:
    """Every function (methods and nested functions too) of `source` with more than `limit`
    parameters, as "file:line name (n parameters)"."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            count = parameter_count(node)
            if count > limit:
                found.append((node.lineno, f"{name}:{node.lineno} {node.name} ({count} "
                                           "parameters)"))
    return [line for _, line in sorted(found)]


def test_no_function_takes_more_than_the_limit() -> None:
    found = [line for name, source in _sources() for line in long_signatures(name, source)]
    assert not found, (f"functions over {MAX_PARAMETERS} parameters (pass their options as "
                       f"one typed value): {found}")


def test_a_planted_long_signature_is_found() -> None:
    planted = (
        "def six(a, b, c, /, d, *, e, f):\n    pass\n\n\n"
        "def seven(a, b, c, d, e, f, g):\n    pass\n\n\n"
        "class C:\n"
        "    def method(self, a, b, c, d, e, f):\n        pass\n\n"
        "    def starred(self, a, b, c, d, e, *args, **kwargs):\n        pass\n\n\n"
        "async def keywords(a, *, b, c, d, e, f, g):\n    pass\n"
    )
    assert long_signatures("planted.py", planted) == [
        "planted.py:5 seven (7 parameters)",
        "planted.py:13 starred (7 parameters)",
        "planted.py:17 keywords (7 parameters)",
    ]
    assert long_signatures("edge.py", "def six(a, b, c, d, e, f):\n    pass\n") == []
