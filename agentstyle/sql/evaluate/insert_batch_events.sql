-- Bulk insert of batch events, identity and routing only (bookkeeping comes next):
-- one bound list per column, seq … cwd in the order of batch_tables.sql.
INSERT INTO batch_events (seq, harness, native_event, point, session_id, turn_id, tool,
                          native_tool, mcp_server, skill, session_source, stop_active, ts,
                          call_id, failed, model, cwd)
SELECT unnest($1), unnest($2), unnest($3), unnest($4), unnest($5), unnest($6), unnest($7),
       unnest($8), unnest($9), unnest($10), unnest($11), unnest($12), unnest($13), unnest($14),
       unnest($15), unnest($16), unnest($17);
