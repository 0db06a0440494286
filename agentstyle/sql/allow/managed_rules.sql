-- The rules of the organisation's policy: no `style allow` lifts them
-- (docs/harnesses/index.md#layers).
-- Result: rule_id.
SELECT rule_id FROM rules WHERE layer = 'managed';
