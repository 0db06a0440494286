-- Export: the rows of a table keyed by event id (`hits`: candidate outcomes, `claims`: dedup
-- claims) that belong to one day's events, to one Parquet file, with the machine; in event
-- order, then by the whole row (a hit's rule id, a claim's key first).
-- Parameters: $table (its name), $path (file), $machine (its name in the export), $start, $end
-- (TIMESTAMP: the day within the window asked for), $first_id, $last_id (that span's event ids,
-- audit/window_ids.sql: rows of other days are skipped by the zone maps, not scanned).
COPY (
    SELECT $machine AS machine, x.*
    FROM query_table($table) x
    JOIN events e ON e.event_id = x.event_id AND x.event_id BETWEEN $first_id AND $last_id
    WHERE e.ts >= $start AND e.ts < $end
    ORDER BY x.event_id, x
) TO $path (FORMAT parquet);
