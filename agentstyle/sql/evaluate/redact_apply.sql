-- One rule's redaction applied to texts of one event: every match of each of the rule's RE2
-- patterns replaced by its `with` (`\1` a group), the patterns in turn in the order written
-- (`redact.patterns`; one for `redact.pattern`), the RE2 `style validate` checked them with
-- (policy/check_rewrite.sql). One statement for the whole list. Parameters: $texts,
-- $patterns (a list), $replacement, $keep (one RE2 pattern, or NULL).
-- Result: texts, in the order given.
--
-- `keep` (docs/actions.md#keep) is tested against each match on its own: one pass marks every
-- match as NUL match SOH replacement NUL (RE2 fills the groups in place, in context), the text
-- is split at NUL (a match at every even place) and each match becomes its replacement unless
-- `keep` finds in it. A text that already holds a NUL or SOH cannot be split so: every match
-- of it is replaced (more taken out, never less).
WITH RECURSIVE steps(step, texts) AS (
    SELECT 0, CAST($texts AS VARCHAR[])
    UNION ALL
    SELECT step + 1,
           list_transform(texts, lambda t:
               CASE WHEN $keep IS NULL OR t LIKE '%' || chr(0) || '%' OR t LIKE '%' || chr(1) || '%'
                    THEN regexp_replace(t, $patterns[step + 1], $replacement, 'g')
                    WHEN NOT regexp_matches(t, $patterns[step + 1]) THEN t
                    ELSE array_to_string(list_transform(
                        string_split(regexp_replace(t, $patterns[step + 1],
                            chr(0) || '\0' || chr(1) || $replacement || chr(0), 'g'), chr(0)),
                        lambda part, i: CASE
                            WHEN i % 2 = 1 THEN part
                            WHEN regexp_matches(split_part(part, chr(1), 1), $keep)
                                THEN split_part(part, chr(1), 1)
                            ELSE substr(part, strpos(part, chr(1)) + 1)
                        END), '')
               END)
    FROM steps
    WHERE step < len(CAST($patterns AS VARCHAR[]))
)
SELECT texts FROM steps ORDER BY step DESC LIMIT 1;
