-- The answer given to one event. Parameters: $verdict, $latency_us, $error, $event_id.
UPDATE events SET verdict = $verdict, latency_us = $latency_us, error = $error
WHERE event_id = $event_id;
