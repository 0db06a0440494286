-- The batch of events being evaluated (one for a hook, many for replay), as temporary tables.
-- No parameters. batch_events: one row per event (bookkeeping columns filled by
-- book_batch.sql); batch_fields: its normalized field rows; batch_rendered: the bodies Python
-- rendered for the matched candidates.
CREATE TEMP TABLE IF NOT EXISTS batch_events (
    seq INTEGER, harness VARCHAR, native_event VARCHAR, point VARCHAR, session_id VARCHAR,
    turn_id VARCHAR, tool VARCHAR, native_tool VARCHAR, mcp_server VARCHAR, skill VARCHAR,
    session_source VARCHAR, stop_active BOOLEAN, ts DOUBLE, call_id VARCHAR, failed BOOLEAN,
    model VARCHAR, cwd VARCHAR,
    event_id BIGINT, generation INTEGER, compaction INTEGER, prompt_count INTEGER,
    turn_key VARCHAR
);
CREATE TEMP TABLE IF NOT EXISTS batch_fields (seq INTEGER, field VARCHAR, idx INTEGER, value VARCHAR);
CREATE TEMP TABLE IF NOT EXISTS batch_rendered (
    seq INTEGER, rule_id VARCHAR, text VARCHAR, model_text VARCHAR, hash VARCHAR,
    tokens INTEGER, truncated BOOLEAN, error VARCHAR
);
