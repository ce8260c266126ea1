"""The mutants: every known-bad variant the checkers must catch, declared once.

`registry` is the one table of mutants: per mutant, what it mutates (the spec or the
reference implementation), its set (a spec knob, a bug of the system's history, a
single-change slip), its base variant, what must catch it, and where its definition lives
(loaded lazily, so listing the names imports neither torch nor a checker). `spec_mutants`
holds the spec mutants' definitions (the knobs changed, the witness scenarios) and builds
them. The reference mutants' classes, and the one runner that puts every mutant through the
checkers that must catch it (the `mutants` command and the kill matrix), are in
`model_checks.mutant_run`: they use the conformance run, which itself reads the spec mutants'
witnesses, so they sit above the checkers while this package sits below them.
"""
