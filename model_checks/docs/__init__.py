"""Generated documentation: pages built from the registry and from real, deterministic runs.

`python -m model_checks docs` writes them; `python -m model_checks docs --check` fails when the
committed pages differ from what the code generates now (CI runs it).
"""
