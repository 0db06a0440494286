-- Where each installed rule comes from, for the commands "needs attention" suggests: its
-- package and the package's source (a folder, as installed).
-- No parameters. Result: rule_id, package, source.
SELECT r.rule_id, r.package, p.source
FROM rules r
LEFT JOIN packages p ON p.name = r.package
ORDER BY r.rule_order;
