-- Empty the batch tables before the next batch. No parameters.
DELETE FROM batch_events; DELETE FROM batch_fields; DELETE FROM batch_rendered;
