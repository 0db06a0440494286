-- bench/history_bench.py: a synthetic history of $n events appended to a freshly installed
-- project's database, in one statement per table (no hook runs): what the hooks of a team's
-- sessions would have left, at $per_day events a day, in time order (event ids ascending with
-- time, as the hooks append them), the last event at $last.
-- Every 250 events are one session (9 in 10 claude-code, 1 in 10 codex), a prompt then tool
-- calls (pre and post) of shell, file.read and file.edit; one shell call in 40 is blocked by
-- `scale/r00005` and one read in 50 warned by `scale/r00002` (the generated package's rules),
-- those events keeping their 18 field rows as `log: hits` does; latencies 1.5 to 6 ms.
-- Parameters: $n (events), $per_day, $last (TIMESTAMP).
CREATE TEMP TABLE gen AS
SELECT i,
       $last - to_microseconds(CAST(round(($n - 1 - i) * 86400e6 / $per_day) AS BIGINT)) AS ts,
       CASE WHEN (i // 250) % 10 = 9 THEN 'codex' ELSE 'claude-code' END AS harness,
       'bench-' || CAST(i // 250 AS VARCHAR) AS session_id,
       CASE WHEN i % 250 = 0 THEN 'session.start'
            WHEN i % 25 = 1 THEN 'prompt.submitted'
            WHEN i % 2 = 0 THEN 'tool.pre'
            ELSE 'tool.post' END AS point,
       CASE (i // 2) % 3 WHEN 0 THEN 'shell' WHEN 1 THEN 'file.read' ELSE 'file.edit' END AS tool,
       CAST((i % 250) // 25 AS INTEGER) + 1 AS prompt_count
FROM range(CAST($n AS BIGINT)) t(i);

INSERT INTO events BY NAME
SELECT i + 1 AS event_id, ts, harness,
       CASE point WHEN 'session.start' THEN 'SessionStart'
                  WHEN 'prompt.submitted' THEN 'UserPromptSubmit'
                  WHEN 'tool.pre' THEN 'PreToolUse' ELSE 'PostToolUse' END AS native_event,
       point, session_id, 0 AS generation, 0 AS compaction, prompt_count,
       CASE WHEN point LIKE 'tool.%' THEN tool END AS tool,
       CASE WHEN point LIKE 'tool.%' THEN
           CASE tool WHEN 'shell' THEN 'Bash' WHEN 'file.read' THEN 'Read' ELSE 'Edit' END
       END AS native_tool,
       CASE WHEN point LIKE 'tool.%' THEN 'toolu_' || CAST(i // 2 AS VARCHAR) END AS call_id,
       false AS failed, '/work/acme' AS cwd,
       CASE WHEN point = 'tool.pre' AND tool = 'shell' AND i % 40 = 0 THEN 'block'
            WHEN point = 'tool.pre' AND tool = 'file.read' AND i % 50 = 2 THEN 'warn'
            ELSE 'none' END AS verdict,
       1500 + (i * 7919) % 4500 AS latency_us, false AS stop_active
FROM gen
ORDER BY i;

INSERT INTO hits BY NAME
SELECT i + 1 AS event_id,
       CASE WHEN tool = 'shell' THEN 'scale/r00005' ELSE 'scale/r00002' END AS rule_id,
       point,
       CASE WHEN tool = 'shell' THEN 'blocked' ELSE 'emitted' END AS outcome,
       12 AS tokens
FROM gen
WHERE point = 'tool.pre' AND ((tool = 'shell' AND i % 40 = 0) OR (tool = 'file.read' AND i % 50 = 2))
ORDER BY i;

INSERT INTO event_fields BY NAME
SELECT h.event_id, f.field, 0 AS idx, f.field || ':' || CAST(h.event_id AS VARCHAR) AS value
FROM hits h
CROSS JOIN (SELECT unnest(['event.name', 'thinking_effort', 'thinking_effort_raw',
                           'harness.name', 'harness.version', 'harness.cwd',
                           'harness.permission_mode', 'harness.agent', 'harness.session_id',
                           'harness.turn_id', 'tool.name', 'tool.native', 'shell.commands',
                           'style.call_key', 'tool.input', 'tool.input.command', 'model',
                           'provider']) AS field) f
ORDER BY h.event_id, f.field;

INSERT INTO sessions BY NAME
SELECT harness, session_id, 0 AS generation, 0 AS compaction, max(prompt_count) AS prompt_count,
       'claude-sonnet-4-5' AS model, min(ts) AS first_seen, max(ts) AS last_seen
FROM gen
GROUP BY harness, session_id
ORDER BY first_seen;

UPDATE event_counter SET last_id = $n;  -- the ids the hooks would have taken

DROP TABLE gen;
