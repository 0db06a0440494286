-- `--from`: event ids are per machine, so every exported event gets a new id, in time order.
-- No parameters (reads raw_events). Creates temp table event_map (machine, old_id, new_id).
CREATE TEMP TABLE event_map AS
SELECT machine, event_id AS old_id,
       row_number() OVER (ORDER BY ts, machine, event_id) AS new_id
FROM raw_events;
