-- Drop the answers past the window (and an older one of this identity) before a new one is
-- kept, so `answered` holds the last seconds' events only.
-- Parameters: $identity, $window_s (the window in seconds).
DELETE FROM answered
WHERE ts < now()::TIMESTAMP - to_seconds(CAST($window_s AS DOUBLE)) OR identity = $identity;
