-- Evaluation index (schema 005): the distinct regexes of field paths with `*` segments.
-- No parameters.
INSERT INTO field_patterns
SELECT DISTINCT field_regex FROM conditions WHERE field_regex IS NOT NULL;
