-- Whether a policy is installed at all. Parameters: none. Result: one row: rules (a count).
SELECT count(*) AS rules FROM rules;
