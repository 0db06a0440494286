-- Whether a policy is installed at all. Parameters: none. Result: one count.
SELECT count(*) FROM rules;
