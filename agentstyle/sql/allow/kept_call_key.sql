-- Whether the history kept an event's call key (it does not under `log: off`): without it
-- `style allow` cannot find the call again, so no allow code is offered.
-- Parameters: $1 event id, $2 call key. Result: one row when kept.
SELECT 1
FROM event_fields
WHERE event_id = $1 AND field = 'style.call_key' AND value = $2
LIMIT 1;
