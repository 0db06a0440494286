-- The bookkeeping of the batch as book_batch.sql left it. No parameters.
-- Result: seq, event_id, generation, compaction, prompt_count, model, in order.
SELECT seq, event_id, generation, compaction, prompt_count, model
FROM batch_events
ORDER BY seq;
