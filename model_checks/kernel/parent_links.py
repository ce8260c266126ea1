"""The path a breadth-first search found: the walk back along parent links of a search
that keeps its visited states in a dict (the retry theorem's search in `retries`).

A search records, for every state it visits, the state it came from and the action it took
(`None` for the initial state). Walking those links back from a state gives the actions from
the initial state to it; when the search is breadth-first and records a state only on its
first visit, that path is a shortest one. (The explorer of `explore.graph` keeps its graph
as arrays of state numbers and walks its own `parent` array the same way.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

Node = TypeVar("Node")
Step = TypeVar("Step")


def path_to(parent: Mapping[Node, tuple[Node, Step] | None], node: Node) -> tuple[Step, ...]:
    """The steps from the initial state to `node` along `parent` (every state on the way must
    be in `parent`; the initial state's link is `None`)."""
    steps: list[Step] = []
    link = parent[node]
    while link is not None:
        node, step = link
        steps.append(step)
        link = parent[node]
    return tuple(reversed(steps))
