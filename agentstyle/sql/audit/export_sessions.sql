-- Export: the sessions last seen on one day to one Parquet file, with the machine.
-- Parameters: $path (file), $machine (user@host), $day (DATE), $since, $until (TIMESTAMP or NULL).
COPY (
    SELECT $machine AS machine, s.*
    FROM sessions s
    WHERE CAST(s.last_seen AS DATE) = $day
      AND ($since IS NULL OR s.last_seen >= $since) AND ($until IS NULL OR s.last_seen < $until)
    ORDER BY s.harness, s.session_id
) TO $path (FORMAT parquet);
