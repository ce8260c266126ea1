"""`python -m model_checks mutants`: every mutant through every checker that must catch it.

The project's rule is that a check that cannot fail is a defect. This command shows, in one
table, which checker catches which known-bad variant: the spec mutants
(`model_checks.mutants`) through their witness scenario, the Hypothesis machines and the Z3
bounded model checker, and the implementation mutants (`model_checks.conform.mutants`)
through the conformance run. `outcome` holds the typed results, `checkers` runs them,
`names` knows their names without importing torch, `options` holds the budgets (importable
without any checker), and `command` is the command line.
"""
