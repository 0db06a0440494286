-- `--from`: the exported packages; each name keeps its newest snapshot.
-- Parameters: $files (list of Parquet files).
INSERT INTO packages BY NAME
SELECT * EXCLUDE (machine, exported_at)
FROM read_parquet($files, hive_partitioning = false, union_by_name = true)
QUALIFY row_number() OVER (PARTITION BY name ORDER BY exported_at DESC, machine) = 1;
