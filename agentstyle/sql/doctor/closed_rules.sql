-- The installed rules that fail closed (`fail: closed`: a broken STYLE refuses where they run),
-- for `style doctor`: install writes their handlers so. No parameters. Result: rule_id.
SELECT rule_id FROM rules WHERE fail = 'closed' ORDER BY rule_id;
