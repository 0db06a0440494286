-- `--from`: the exported events, once each (the same day exported twice counts once).
-- Parameters: $files (list of Parquet files). Creates temp table raw_events.
CREATE TEMP TABLE raw_events AS
SELECT *
FROM read_parquet($files, hive_partitioning = true, union_by_name = true)
QUALIFY row_number() OVER (PARTITION BY machine, event_id ORDER BY ts) = 1;
