-- `--from`: the exported events, once each (the same day exported twice counts once).
-- The machine comes from the rows, not from `machine=` folders: exports written before that
-- partition (`date=…/<table>-<machine>.parquet`) and after it read together.
-- Parameters: $files (list of Parquet files). Creates temp table raw_events.
CREATE TEMP TABLE raw_events AS
SELECT *
FROM read_parquet($files, hive_partitioning = false, union_by_name = true)
QUALIFY row_number() OVER (PARTITION BY machine, event_id ORDER BY ts) = 1;
