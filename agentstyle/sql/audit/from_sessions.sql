-- `--from`: the exported sessions; a session exported on several days keeps its latest row.
-- Parameters: $files (list of Parquet files).
INSERT INTO sessions BY NAME
SELECT * EXCLUDE (machine)
FROM read_parquet($files, hive_partitioning = false, union_by_name = true)
QUALIFY row_number() OVER (PARTITION BY harness, session_id ORDER BY last_seen DESC, machine) = 1;
