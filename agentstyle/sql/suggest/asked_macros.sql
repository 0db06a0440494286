-- What consented.sql and unseen_asks.sql share, defined on the connection before they run
-- (suggest.py _read): temporary macros, so a read-only history takes them too.
-- asked_calls: the tool calls a rule asked about (an `asked` hit on a tool.pre event whose
-- verdict was `ask`), one row per rule that asked.
-- post_event_came: whether such a call's post event came, so the person approved it: the same
-- call id, or, where the harness gives none, the session's next post event of the same native
-- tool before its next pre event.
-- event_field: an event's stored value of one field (NULL where it was not stored).
CREATE OR REPLACE TEMP MACRO asked_calls() AS TABLE
    SELECT e.event_id, e.ts, e.harness, e.session_id, e.tool, e.native_tool, e.call_id,
           e.transcript, h.rule_id
    FROM events e
    JOIN hits h ON h.event_id = e.event_id AND h.outcome = 'asked'
    WHERE e.verdict = 'ask' AND e.point = 'tool.pre';

CREATE OR REPLACE TEMP MACRO post_event_came(of_harness, of_session, of_event, of_tool, of_call)
AS (
    EXISTS (
        SELECT 1 FROM events p
        WHERE p.harness = of_harness AND p.session_id = of_session
          AND p.point = 'tool.post' AND p.event_id > of_event
          AND p.native_tool IS NOT DISTINCT FROM of_tool
          AND CASE
              WHEN of_call IS NOT NULL THEN p.call_id = of_call
              ELSE p.call_id IS NULL AND NOT EXISTS (
                  SELECT 1 FROM events q
                  WHERE q.harness = of_harness AND q.session_id = of_session
                    AND q.point = 'tool.pre' AND q.event_id > of_event
                    AND q.event_id < p.event_id)
          END)
);

CREATE OR REPLACE TEMP MACRO event_field(of_event, name) AS (
    SELECT min(f.value) FROM event_fields f WHERE f.event_id = of_event AND f.field = name
);
