"""The main and nightly jobs: which checkers run, in which order, at which budgets (`phases`),
which phases run side by side and when (`schedule`), how a job runs them and reports (`run`),
and a named instance's verdict judged against the project's answer (`expected`)."""
