-- Remove the whole installed policy (replaced in the same transaction by the insert_* files).
DELETE FROM packages; DELETE FROM rules; DELETE FROM rule_tools; DELETE FROM conditions;
DELETE FROM condition_clauses; DELETE FROM templates; DELETE FROM settings; DELETE FROM entries;
DELETE FROM program_grammars; DELETE FROM command_heads; DELETE FROM command_literals;
DELETE FROM rule_exceptions;
