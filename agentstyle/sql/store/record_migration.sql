-- Record that a migration ran. Parameters: the migration's number.
INSERT INTO schema_version VALUES (?);
