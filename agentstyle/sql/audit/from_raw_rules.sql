-- `--from`: every exported snapshot of the installed rules.
-- Parameters: $files (list of Parquet files). Creates temp table raw_rules.
CREATE TEMP TABLE raw_rules AS
SELECT * FROM read_parquet($files, hive_partitioning = true, union_by_name = true);
