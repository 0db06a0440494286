-- The program grammars of the compiled policy (schema 013) that the command model reads.
-- Parameters: $1 the programs wanted, or NULL for every one (a resident engine reads all once).
-- Result: program, family, grammar (JSON).
SELECT program, family, grammar
FROM program_grammars
WHERE $1 IS NULL OR list_contains($1, program);
