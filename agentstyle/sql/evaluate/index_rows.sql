-- The evaluation index's rows of these route keys as a resident engine holds them to run the
-- text tests itself (evaluator/heldindex.py, docs/design/runtime.md#tests-held): each row's
-- clause and rule, whether it is negated or an exception's, the field row it reads and its tests.
-- Parameters: $routes (route keys, `harness|point|key`).
-- Result: route, clause_key, rule_order, shadow, negated, lookup_key, literal, any_literals, literal_ci,
-- regex, other (an equals, `in` or number test: left to match.sql).
SELECT route, clause_key, rule_order, shadow, negated, lookup_key, literal, any_literals, literal_ci, regex,
       (equals IS NOT NULL OR one_of IS NOT NULL OR num_signs IS NOT NULL) AS other
FROM match_rows
WHERE list_contains($routes, route)
ORDER BY route, clause_key;
