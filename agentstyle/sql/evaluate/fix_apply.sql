-- A fix applied to the text of one simple command: the first match of the rule's RE2 pattern
-- replaced by its template (`\1` a group), exactly as `style validate` checked them
-- (policy/check_rewrite.sql). Parameters: $text, $pattern, $template. Result: fixed, the text.
SELECT regexp_replace($text, $pattern, $template) AS fixed;
