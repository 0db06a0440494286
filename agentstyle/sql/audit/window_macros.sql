-- The window every audit report reads, defined once per connection (report.py define_window):
-- table macros, so each report's statement stays one query that DuckDB plans whole (the
-- filters reach the scan of `events` and its zone maps as if written out in place).
-- window_events: the events of the window: since inclusive, until exclusive (TIMESTAMP or
-- NULL), session and harness exact or NULL.
-- report_events: those, with rule (a GLOB over rule ids, or NULL) keeping the events that rule
-- fired on; first_id and last_id are the window's event ids (audit/window_ids.sql), the range
-- its hits are read in.
-- window_hits: the hits of that range, only rule's where it is given; a report joins them to
-- its events (the range alone may hold events another filter leaves out).
CREATE OR REPLACE TEMP MACRO window_events(since, until, session, harness) AS TABLE
    SELECT e.*
    FROM events e
    WHERE (since IS NULL OR e.ts >= since)
      AND (until IS NULL OR e.ts < until)
      AND (session IS NULL OR e.session_id = session)
      AND (harness IS NULL OR e.harness = harness);

CREATE OR REPLACE TEMP MACRO report_events(since, until, session, harness, rule, first_id, last_id)
AS TABLE
    SELECT e.*
    FROM window_events(since, until, session, harness) e
    WHERE rule IS NULL OR EXISTS (
        SELECT 1 FROM hits h
        WHERE h.event_id = e.event_id AND h.rule_id GLOB rule
          AND h.event_id BETWEEN first_id AND last_id);

CREATE OR REPLACE TEMP MACRO window_hits(rule, first_id, last_id) AS TABLE
    SELECT h.*
    FROM hits h
    WHERE h.event_id BETWEEN first_id AND last_id
      AND (rule IS NULL OR h.rule_id GLOB rule);
