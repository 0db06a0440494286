"""The evaluator: an event matched, rendered and decided in SQL, and recorded."""
