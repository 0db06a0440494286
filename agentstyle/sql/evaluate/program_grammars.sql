-- The program grammars of the compiled policy (schema 013) that the command model reads.
-- Parameters: $programs, the programs wanted, or NULL for every one (a resident engine reads
-- all once).
-- Result: program, family, grammar (JSON).
SELECT program, family, grammar
FROM program_grammars
WHERE $programs IS NULL OR list_contains($programs, program);
