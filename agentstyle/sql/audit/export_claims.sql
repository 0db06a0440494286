-- Export: the dedup claims of one day's events to one Parquet file, with the machine.
-- Parameters: $path (file), $machine (its name in the export), $start, $end (TIMESTAMP: the
-- day within the window asked for), $first_id, $last_id (that span's event ids,
-- audit/window_ids.sql: rows of other days are skipped by the zone maps, not scanned).
COPY (
    SELECT $machine AS machine, x.*
    FROM claims x
    JOIN events e ON e.event_id = x.event_id AND x.event_id BETWEEN $first_id AND $last_id
    WHERE e.ts >= $start AND e.ts < $end
    ORDER BY x.event_id, x.claim_key
) TO $path (FORMAT parquet);
