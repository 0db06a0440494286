-- Evaluation index (schema 013): the literals of the placed rules' command conditions, a row per
-- name that selects them, so that an event's commands find their conditions by name alone
-- (sql/evaluate/commands.sql). No parameters. Run after index_placed.sql.
INSERT INTO command_match_rows
SELECT h.head, 'command#' || l.rule_id || '#' || l.node_id,
       dense_rank() OVER (ORDER BY l.rule_id, l.node_id, l.clause_id),
       l.clause_size, l.negated, l.kind, l.keys, l.regex, l.equals, l.equals_num, l.one_of,
       l.num, l.num_signs, l.path_tests
FROM command_literals l
JOIN command_heads h ON h.rule_id = l.rule_id AND h.node_id = l.node_id
WHERE l.rule_id IN (SELECT rule_id FROM placed)
ORDER BY h.head;
