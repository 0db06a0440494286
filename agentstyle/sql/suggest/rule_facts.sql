-- What `style suggest` needs of each installed rule to propose an edit of it
-- (docs/audit.md#suggest). No parameters.
-- Result: rule_id, package, local_id, target, action, repeat, fail, source (its package's
-- folder or file), source_file (the file the rule is written in, as the loader named it).
SELECT r.rule_id, r.package, r.local_id, r.target, r.action, r.repeat, r.fail, p.source,
       r.source_file
FROM rules r
JOIN packages p ON p.name = r.package
ORDER BY r.rule_order;
