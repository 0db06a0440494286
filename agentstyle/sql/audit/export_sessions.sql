-- Export: the sessions last seen on one day to one Parquet file, with the machine.
-- Parameters: $path (file), $machine (its name in the export), $start, $end (TIMESTAMP: the
-- day within the window asked for).
COPY (
    SELECT $machine AS machine, s.*
    FROM sessions s
    WHERE s.last_seen >= $start AND s.last_seen < $end
    ORDER BY s.harness, s.session_id
) TO $path (FORMAT parquet);
