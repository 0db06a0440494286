-- Record that a migration ran. Parameters: $version, the migration's number.
INSERT INTO schema_version VALUES ($version);
