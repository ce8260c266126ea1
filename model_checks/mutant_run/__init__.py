"""The one runner of the mutants: every mutant of the registry (`model_checks.mutation`)
through every checker that must catch it, and the reference implementation's mutants.

The project's rule is that a check that cannot fail is a defect. `checkers` runs the spec
mutants through their witness scenario, the Hypothesis machines and the Z3 bounded model
checker, and the reference's mutants through the conformance run, which `killmatrix` drives
(it also writes docs/kill-matrix.md: the history mutants in one process and across two, and
the slips). `outcome` holds the typed results, `options` the budgets (importable without any
checker), and `command` is the command line (`python -m model_checks mutants`).

The reference's mutants: the classes of the history bugs (`history_mutants`) and of the
single-change slips (`slip_mutants`), built in one shape (`factory`: the wrappers that put a
class in its place in the reference adapter) by `reference_mutants`, which also serves each
as an adapter (`--adapter model_checks.mutant_run.reference_mutants:mutant_<name>`).
"""
