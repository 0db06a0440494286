-- The project folder the window's sessions ran in, per harness (the most frequent `cwd`): where
-- a harness keeps those sessions' transcripts for `style replay`.
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL).
-- Result: harness, cwd, events — the most frequent folder of each harness first.
SELECT e.harness, e.cwd, count(*) AS events
FROM window_events($since, $until, $session, $harness) e
WHERE e.cwd IS NOT NULL
GROUP BY e.harness, e.cwd
QUALIFY row_number() OVER (PARTITION BY e.harness ORDER BY count(*) DESC, e.cwd) = 1
ORDER BY events DESC, e.harness;
