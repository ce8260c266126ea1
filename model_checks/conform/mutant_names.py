"""The names of the implementation mutants (`model_checks.conform.mutants.MUTANTS`), known
without importing torch, so that `mutants --mutant NAME` rejects an unknown name at once
(`tests/conform/test_conform_cli.py` keeps this list equal to the mutants')."""

IMPL_MUTANT_NAMES: tuple[str, ...] = (
    "engine-asserts", "never-invalidates", "keeps-stale-on-resend", "ghost-touch",
    "evicts-most-recent", "receiver-sizes-differently", "reports-first-miss",
    "no-touch-before-update",
)
