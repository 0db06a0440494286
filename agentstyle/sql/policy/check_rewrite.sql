-- Apply one fix's replacement with the RE2 evaluation uses, on an empty string: a replacement
-- naming a group the pattern lacks, or a backslash RE2 does not take, raises.
-- Parameters: $pattern, $replacement. Result: one string (ignored).
SELECT regexp_replace('', $pattern, $replacement);
