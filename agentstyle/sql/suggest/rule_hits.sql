-- The events a rule fired on, for the evidence of a `style suggest` proposal
-- (docs/audit.md#suggest). Parameters: $rule (a rule id). Result: events (the first 50 event
-- ids), fired (how many events), sessions, first_ts, last_ts.
SELECT (list(h.event_id ORDER BY h.event_id))[1:50] AS events,
       count(DISTINCT h.event_id) AS fired,
       count(DISTINCT (e.harness, e.session_id)) AS sessions,
       min(e.ts) AS first_ts,
       max(e.ts) AS last_ts
FROM hits h
JOIN events e ON e.event_id = h.event_id
WHERE h.rule_id = $rule;
