"""The policy compiler: package files to the rows the evaluator joins (docs/design/policy.md)."""
