-- `--from`: every exported snapshot of the installed rules.
-- The machine comes from the rows, not from `machine=` folders: exports written before that
-- partition (`date=…/<table>-<machine>.parquet`) and after it read together.
-- Parameters: $files (list of Parquet files). Creates temp table raw_rules.
CREATE TEMP TABLE raw_rules AS
SELECT * FROM read_parquet($files, hive_partitioning = false, union_by_name = true);
