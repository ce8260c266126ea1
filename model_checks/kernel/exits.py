"""The command line's shared exit codes and its usage error, one place: the command line
(`model_checks.cli`) and every command that uses them read them here, so that nothing needs to
import the command line for them.

0 every verdict matched its expectation; 1 some verdict differed (a finding or a regression:
the output marks it); 2 usage or input error (one line on stderr). Commands with more outcomes
add their own codes beside these (`model_checks.conform.exits`; the doctor's 5).
"""

import sys

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or unreadable input: `model_checks.cli.main` prints it as one line and
    exits with `EXIT_USAGE`."""


def usage_exit(error: object) -> int:
    """A usage error, as every command ends on one: `error: ...` as one line on stderr, and
    `EXIT_USAGE` to return."""
    print(f"error: {error}", file=sys.stderr)
    return EXIT_USAGE
