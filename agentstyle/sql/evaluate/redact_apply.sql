-- One rule's redaction applied to texts of one event: every match of each of the rule's RE2
-- patterns replaced by its `with` (`\1` a group), the patterns in turn in the order written
-- (`redact.patterns`; one for `redact.pattern`), the RE2 `style validate` checked them with
-- (policy/check_rewrite.sql). One statement for the whole list. Parameters: $texts,
-- $patterns (a list), $replacement. Result: texts, in the order given.
WITH RECURSIVE steps(step, texts) AS (
    SELECT 0, CAST($texts AS VARCHAR[])
    UNION ALL
    SELECT step + 1,
           list_transform(texts, lambda t: regexp_replace(t, $patterns[step + 1], $replacement, 'g'))
    FROM steps
    WHERE step < len(CAST($patterns AS VARCHAR[]))
)
SELECT texts FROM steps ORDER BY step DESC LIMIT 1;
