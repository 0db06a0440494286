-- Record the batch's events with their answers, after they were decided
-- (docs/design/runtime.md#record). Parameters: a list per column of `events` (evaluator/records.py
-- EventRow), each named as the column it fills: $ts in epoch seconds, $latency_us NULL for an event
-- not answered live, $error the event's notes, $stop_active the loop guard's input, $transcript the harness's
-- transcript file.
INSERT INTO events BY NAME
SELECT unnest($event_id) AS event_id,
       make_timestamp(CAST(round(unnest($ts) * 1000000) AS BIGINT)) AS ts,
       unnest($harness) AS harness, unnest($native_event) AS native_event,
       unnest($point) AS point, unnest($session_id) AS session_id, unnest($turn_id) AS turn_id,
       unnest($generation) AS generation, unnest($compaction) AS compaction,
       unnest($prompt_count) AS prompt_count, unnest($tool) AS tool,
       unnest($native_tool) AS native_tool, unnest($call_id) AS call_id,
       unnest($failed) AS failed, unnest($cwd) AS cwd, unnest($verdict) AS verdict,
       unnest($latency_us) AS latency_us, unnest($error) AS error,
       unnest($stop_active) AS stop_active, unnest($transcript) AS transcript;
