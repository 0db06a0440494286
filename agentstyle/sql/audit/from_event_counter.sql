-- `--from`: the counter of event ids (schema 010) after the loaded events, as a database the
-- hooks wrote keeps it. No parameters. Runs after from_events.
UPDATE event_counter SET last_id = (SELECT coalesce(max(event_id), 0) FROM events);
