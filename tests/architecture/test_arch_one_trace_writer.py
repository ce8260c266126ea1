"""One writer of trace documents: no module of model_checks/ but `model_checks/kernel/itf.py` builds
a trace document (read from the source with `ast`: a dict display with a `states` key beside
`#meta` or `vars`, as an ITF document or the old trace format has, or with `design` beside
`actions`, as the old design witnesses had). Every checker's trace goes through
`itf.document`, so the format and its metadata are stated once. The check also runs on
planted sources, to show it can fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WRITER = "model_checks/kernel/itf.py"
SHAPES = ({"states", "#meta"}, {"states", "vars"}, {"design", "actions"})
"""Key sets of which a dict display holding all is a trace document."""


def builders(name: str, source: str) -> list[str]:
    """Every dict display of `source` shaped as a trace document, as "file:line"."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            if any(shape <= keys for shape in SHAPES):
                found.append(f"{name}:{node.lineno}")
    return found


def test_only_itf_builds_a_trace_document() -> None:
    found = [line for path in sorted((ROOT / "model_checks").rglob("*.py"))
             if path.relative_to(ROOT).as_posix() != WRITER
             for line in builders(path.relative_to(ROOT).as_posix(), path.read_text())]
    assert not found, f"trace documents built outside {WRITER} (use itf.document): {found}"


def test_itf_builds_one() -> None:
    assert builders(WRITER, (ROOT / WRITER).read_text())


def test_a_planted_trace_writer_is_found() -> None:
    planted = (
        "def old(config, states):\n"
        "    return {'#meta': {'format': 'x'}, 'config': config, 'states': states}\n\n\n"
        "def witness(actions):\n"
        "    return {'design': 'shm', 'actions': actions}\n\n\n"
        "def harmless(states):\n"
        "    return {'states': states, 'complete': True}\n"
    )
    assert builders("planted.py", planted) == ["planted.py:2", "planted.py:6"]
