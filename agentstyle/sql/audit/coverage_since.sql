-- Audit report `coverage`: when STYLE first recorded an event in this project. A transcript's
-- calls from before STYLE was installed are not calls it missed (docs/audit.md#coverage).
-- Result: one row, the first event's ts (NULL when there is none).
SELECT min(ts) AS first_event FROM events;
