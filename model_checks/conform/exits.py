"""The conform command's exit codes, one place (docs/conformance.md has the table)."""

EXIT_OK = 0
"""CONFORMS (a replay: NOT REPRODUCED, every step followed and agreed)."""
EXIT_FAIL = 1
"""REGRESSION, DISAGREEMENT, NOTHING CHECKED."""
EXIT_USAGE = 2
"""A usage or adapter error (one line on stderr)."""
EXIT_HARNESS = 3
"""HARNESS FAILURE: not the implementation's."""
EXIT_WEAKNESS = 4
"""CONFORMS, BUT INHERITED WEAKNESS (a replay: REPRODUCED INHERITED WEAKNESS)."""
EXIT_NOT_FOLLOWED = 5
"""A replay that could not drive a step of its trace on the implementation: NOT FOLLOWED,
nothing after that step judged."""


class HarnessFailure(RuntimeError):
    """The harness could not do its work (not the implementation's fault: a dead, stopped or
    never-started engine process, a broken wire protocol, an adapter call that raised where it
    should have answered): the one conform command prints `RESULT: HARNESS FAILURE` and exits
    with `EXIT_HARNESS`."""
