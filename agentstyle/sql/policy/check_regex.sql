-- Compile one regular expression with the RE2 evaluation uses, by running it on an empty string.
-- Parameters: $pattern. Result: one boolean (ignored); an invalid pattern raises.
SELECT regexp_matches('', $pattern);
