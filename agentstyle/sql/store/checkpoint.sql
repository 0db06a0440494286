-- Fold the write-ahead log into the database file, so the blocks a prune freed are free for
-- new rows at once (and the WAL does not hold the deleted rows). Parameters: none.
CHECKPOINT;
