"""Shared test helpers live in this folder (`walks.py`, `drift_page.py`, `receive_choice.py`,
`given_graph.py`); pytest puts a conftest's folder on `sys.path`, so every test folder can
import them."""
