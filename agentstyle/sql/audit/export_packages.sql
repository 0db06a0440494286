-- Export: the installed `packages` as of now (the policy the rules report needs) to one Parquet
-- file, with the machine and the export time (the newest snapshot of a rule wins on load).
-- Parameters: $path (file), $machine (its name in the export), $exported_at (TIMESTAMP).
COPY (
    SELECT $machine AS machine, $exported_at AS exported_at, x.*
    FROM packages x
    ORDER BY name
) TO $path (FORMAT parquet);
