-- One redaction applied to texts of one event: every match of the rule's RE2 pattern replaced
-- by its `with` (`\1` a group), the RE2 `style validate` checked them with
-- (policy/check_rewrite.sql). Parameters: $texts, $pattern, $replacement.
-- Result: texts, in the order given.
SELECT list_transform(CAST($texts AS VARCHAR[]),
                      lambda t: regexp_replace(t, $pattern, $replacement, 'g')) AS texts;
