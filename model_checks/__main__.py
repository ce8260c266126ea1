"""`python -m model_checks`: see `model_checks.cli`."""

import sys

from model_checks.cli import main

sys.exit(main())
