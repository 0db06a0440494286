-- `--from`: the exported events into `events`, under their new ids, with their machine.
-- No parameters (reads raw_events, event_map).
INSERT INTO events BY NAME
SELECT m.new_id AS event_id, r.* EXCLUDE (event_id)
FROM raw_events r
JOIN event_map m ON m.machine = r.machine AND m.old_id = r.event_id;
