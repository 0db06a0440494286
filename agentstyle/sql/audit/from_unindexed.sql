-- `--from`: the loaded history is only scanned (by the reports, by `style replay`), never
-- looked up by session or rule as a hook's is, so its secondary indexes are dropped before the
-- rows go in: keeping them up to date was half the time of loading the events.
-- No parameters. Runs before from_events.
DROP INDEX IF EXISTS events_session;
DROP INDEX IF EXISTS hits_rule;
DROP INDEX IF EXISTS claims_key;
