-- Migration 008: a second prefilter per regex predicate. A regex with one short required
-- literal (`git` in the self-protection rule for `git checkout -- .style/…`) may also need
-- one of a set of longer ones (the protected names); policy/prefilter.py any_literal finds
-- them, joined by chr(31), and the evaluation index tests both before the regex, which DuckDB
-- compiles for every row that reaches it. A policy stored before this has none (the index
-- then tests the one literal, as before) until it is installed again.
ALTER TABLE conditions ADD COLUMN IF NOT EXISTS any_literal VARCHAR;
