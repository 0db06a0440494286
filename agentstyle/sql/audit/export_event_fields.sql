-- Export: the stored field rows of one day's events to one Parquet file, with the machine.
-- An event whose field rows were not kept (no hit under `log: hits`, or `log: off`) but that
-- left session facts (schema 006) gets them as the field rows they came from (`shell.commands`,
-- `file.path`), so `style replay` of the export rebuilds the history state the hook read.
-- Parameters: $path (file), $machine (its name in the export), $start, $end (TIMESTAMP: the
-- day within the window asked for), $first_id, $last_id (that span's event ids,
-- audit/window_ids.sql: rows of other days are skipped by the zone maps, not scanned).
COPY (
    SELECT $machine AS machine, x.*
    FROM (
        SELECT event_id, field, idx, value FROM event_fields
        WHERE event_id BETWEEN $first_id AND $last_id
        UNION ALL
        SELECT s.event_id,
               CASE s.kind WHEN 'command' THEN 'shell.commands' ELSE 'file.path' END AS field,
               CAST(row_number() OVER (PARTITION BY s.event_id ORDER BY s.value) - 1 AS INTEGER)
                   AS idx,
               s.value
        FROM session_facts s
        WHERE s.event_id BETWEEN $first_id AND $last_id
          AND NOT EXISTS (
              SELECT 1 FROM event_fields f
              WHERE f.event_id = s.event_id AND f.event_id BETWEEN $first_id AND $last_id)
    ) x
    JOIN events e ON e.event_id = x.event_id AND x.event_id BETWEEN $first_id AND $last_id
    WHERE e.ts >= $start AND e.ts < $end
    ORDER BY x.event_id, x.field, x.idx
) TO $path (FORMAT parquet);
