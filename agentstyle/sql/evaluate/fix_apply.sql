-- A fix applied to the text of one simple command: the first match of the rule's RE2 pattern
-- replaced by its template (`\1` a group), exactly as `style validate` checked them
-- (policy/check_rewrite.sql). Parameters: $1 the text, $2 the pattern, $3 the template.
SELECT regexp_replace($1, $2, $3);
