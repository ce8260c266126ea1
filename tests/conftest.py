"""Shared test helpers live in this folder (`walks.py`); pytest puts a conftest's folder on
`sys.path`, so every test folder can import them."""
