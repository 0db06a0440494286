-- `--from`: exported events keep the machine that recorded them (`audit sql` can group by it).
-- No parameters. Runs before from_events.
ALTER TABLE events ADD COLUMN machine VARCHAR;
