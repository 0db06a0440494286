-- Drop the answers past the window (and an older one of this identity) before a new one is
-- kept, so `answered` holds the last seconds' events only.
-- Parameters: $1 identity, $2 the window in seconds.
DELETE FROM answered
WHERE ts < now()::TIMESTAMP - to_seconds(CAST($2 AS DOUBLE)) OR identity = $1;
