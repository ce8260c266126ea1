"""Generated documentation: pages built from the registry and from real, deterministic runs.

`python -m model_checks docs` writes them; `python -m model_checks docs --check` fails when the
committed pages differ from what the code generates now, or when a hand-written page quotes a
verdict the results snapshot does not hold (`quotes`); CI runs it.
"""
