-- Export: one day of events to one Parquet file, with the machine that recorded them.
-- Parameters: $path (file), $machine (user@host), $day (DATE), $since, $until (TIMESTAMP or NULL).
COPY (
    SELECT $machine AS machine, e.*
    FROM events e
    WHERE CAST(e.ts AS DATE) = $day
      AND ($since IS NULL OR e.ts >= $since) AND ($until IS NULL OR e.ts < $until)
    ORDER BY e.event_id
) TO $path (FORMAT parquet);
