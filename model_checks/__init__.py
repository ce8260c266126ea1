"""Checkers of the executable spec: the scenario suite (and, as they land, the Hypothesis
machines and the Z3 encoding). Run `python -m model_checks --help`."""
