-- `--from`: the exported `hits` rows, once each, pointing at the events' new ids.
-- Parameters: $files (list of Parquet files; reads event_map).
INSERT INTO hits BY NAME
SELECT DISTINCT m.new_id AS event_id, x.* EXCLUDE (event_id, machine)
FROM read_parquet($files, hive_partitioning = false, union_by_name = true) x
JOIN event_map m ON m.machine = x.machine AND m.old_id = x.event_id;
