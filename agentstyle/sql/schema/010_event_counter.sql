-- Migration 010: event ids from a one-row counter instead of max(event_id) + 1 over the whole
-- history, which every hook's bookkeeping paid for and which grew with the history
-- (docs/performance.md#a-history-that-stays-fast). The statements that take ids
-- (evaluate/book*.sql, history/log_error.sql) advance it in their own transaction, so a
-- rolled-back evaluation gives its ids back (replay's speculative batches rely on that) and
-- pruned or forgotten events never have their ids reused. A database that already holds events
-- keeps their ids; the counter continues after the last one. The `event_ids` sequence of 001
-- was never used: a sequence does not roll back with its transaction.
CREATE TABLE event_counter (last_id BIGINT NOT NULL);
INSERT INTO event_counter SELECT coalesce(max(event_id), 0) FROM events;
DROP SEQUENCE IF EXISTS event_ids;
