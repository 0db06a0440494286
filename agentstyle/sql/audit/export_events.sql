-- Export: one day of events to one Parquet file, with the machine that recorded them.
-- Parameters: $path (file), $machine (its name in the export), $start, $end (TIMESTAMP: the
-- day within the window asked for), $first_id, $last_id (that span's event ids,
-- audit/window_ids.sql: rows of other days are skipped by the zone maps, not scanned).
COPY (
    SELECT $machine AS machine, e.*
    FROM events e
    WHERE e.ts >= $start AND e.ts < $end
      AND e.event_id BETWEEN $first_id AND $last_id
    ORDER BY e.event_id
) TO $path (FORMAT parquet);
