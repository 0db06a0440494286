-- Export: the stored field rows of one day's events to one Parquet file, with the machine.
-- Parameters: $path (file), $machine (user@host), $day (DATE), $since, $until (TIMESTAMP or NULL).
COPY (
    SELECT $machine AS machine, x.*
    FROM event_fields x
    JOIN events e ON e.event_id = x.event_id
    WHERE CAST(e.ts AS DATE) = $day
      AND ($since IS NULL OR e.ts >= $since) AND ($until IS NULL OR e.ts < $until)
    ORDER BY x.event_id, x.field, x.idx
) TO $path (FORMAT parquet);
