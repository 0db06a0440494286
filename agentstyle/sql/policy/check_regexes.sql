-- Compile many regular expressions at once with the RE2 evaluation uses: each row's pattern is
-- compiled for that row. Parameters: $patterns (a list). Result: one row (ignored); the first
-- invalid pattern raises, without saying which (check_regex.sql says, one pattern at a time).
SELECT count(regexp_matches('', pattern)) FROM unnest($patterns::VARCHAR[]) AS t(pattern);
