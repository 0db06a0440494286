-- The redactions of one event applied to its texts, every rule's patterns in one statement:
-- each step replaces every match of one RE2 pattern by its `with` (`\1` a group), the steps in
-- the order the rules fired and each rule's patterns as written (`redact.patterns`; one for
-- `redact.pattern`), the RE2 `style validate` checked them with (policy/check_rewrite.sql).
-- Parameters: $texts; $patterns, $replacements and $keeps, one item per step ($keeps: one
-- RE2 pattern or NULL). Result: step (0: the texts as given), texts after it, in the order
-- given; the caller tells from them which rule took something out.
--
-- `keep` (docs/actions.md#keep) is tested against each match on its own: one pass marks every
-- match as NUL match SOH replacement NUL (RE2 fills the groups in place, in context), the text
-- is split at NUL (a match at every even place) and each match becomes its replacement unless
-- `keep` finds in it. A text that already holds a NUL or SOH cannot be split so: every match
-- of it is replaced (more taken out, never less). A text with no match is passed over.
WITH RECURSIVE steps(step, texts) AS (
    SELECT 0, CAST($texts AS VARCHAR[])
    UNION ALL
    SELECT step + 1,
           list_transform(texts, lambda t:
               CASE WHEN $keeps[step + 1] IS NULL
                         OR t LIKE '%' || chr(0) || '%' OR t LIKE '%' || chr(1) || '%'
                    THEN regexp_replace(t, $patterns[step + 1], $replacements[step + 1], 'g')
                    WHEN NOT regexp_matches(t, $patterns[step + 1]) THEN t
                    ELSE array_to_string(list_transform(
                        string_split(regexp_replace(t, $patterns[step + 1],
                            chr(0) || '\0' || chr(1) || $replacements[step + 1] || chr(0), 'g'),
                            chr(0)),
                        lambda part, i: CASE
                            WHEN i % 2 = 1 THEN part
                            WHEN regexp_matches(split_part(part, chr(1), 1), $keeps[step + 1])
                                THEN split_part(part, chr(1), 1)
                            ELSE substr(part, strpos(part, chr(1)) + 1)
                        END), '')
               END)
    FROM steps
    WHERE step < len(CAST($patterns AS VARCHAR[]))
)
SELECT step, texts FROM steps ORDER BY step;
