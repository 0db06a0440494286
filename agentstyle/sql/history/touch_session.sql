-- Session bookkeeping for one event (runtime.md step 3): startup opens a fresh scope, clear
-- increments the generation, compact the compaction round, a prompt the prompt count.
-- Parameters: $1 harness, $2 session id, $3 point, $4 session source, $5 time, $6 model or NULL.
-- Result: generation, compaction, prompt_count, model after this event.
INSERT INTO sessions (harness, session_id, generation, compaction, prompt_count, model,
                      first_seen, last_seen)
VALUES ($1, $2, 0, 0, CASE WHEN $3 = 'prompt.submitted' THEN 1 ELSE 0 END, $6, $5, $5)
ON CONFLICT (harness, session_id) DO UPDATE SET
    generation = CASE WHEN $3 = 'session.start' AND $4 IN ('startup', 'clear')
                      THEN sessions.generation + 1 ELSE sessions.generation END,
    compaction = CASE WHEN $3 = 'session.start' AND $4 IN ('startup', 'clear') THEN 0
                      WHEN $3 = 'session.start' AND $4 = 'compact' THEN sessions.compaction + 1
                      ELSE sessions.compaction END,
    prompt_count = CASE WHEN $3 = 'prompt.submitted' THEN sessions.prompt_count + 1
                        ELSE sessions.prompt_count END,
    model = coalesce($6, sessions.model),
    last_seen = $5
RETURNING generation, compaction, prompt_count, model;
