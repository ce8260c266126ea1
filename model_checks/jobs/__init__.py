"""The main and nightly jobs: which checkers run, in which order, at which budgets (`phases`),
and how a job runs them and reports (`run`)."""
