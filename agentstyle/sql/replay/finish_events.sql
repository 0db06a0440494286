-- The answers given to a batch of replayed events (history/finish_event.sql for many events).
-- Latency is left empty: a replayed event was not answered in real time.
-- Parameters: $1 list of event ids, $2 list of verdicts, $3 list of errors (or NULL).
UPDATE events
SET verdict = v.verdict, error = v.error
FROM (SELECT unnest($1) AS event_id, unnest($2) AS verdict, unnest($3) AS error) AS v
WHERE events.event_id = v.event_id;
