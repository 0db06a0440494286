-- Field rows for the field paths with `*` segments (field_patterns): each event field whose
-- name matches a pattern, under the pattern as its name (the lookup key of match_rows). Run
-- only for events at a point where a condition reads such a path (point_flags.wildcards).
-- Parameters: lists of $seq, $field, $value. Result: seq, field, value.
SELECT f.seq, p.pattern AS field, f.value
FROM (SELECT unnest($seq) AS seq, unnest($field) AS field, unnest($value) AS value) f
JOIN field_patterns p ON regexp_matches(f.field, p.pattern);
