-- The answer given to one event. Parameters: $1 verdict, $2 latency µs, $3 error, $4 event id.
UPDATE events SET verdict = $1, latency_us = $2, error = $3 WHERE event_id = $4;
