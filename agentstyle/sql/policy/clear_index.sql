-- Remove the evaluation index (schema 005) before index_* derive it again from the policy
-- tables. No parameters.
DELETE FROM placed; DELETE FROM match_rows; DELETE FROM point_flags; DELETE FROM field_patterns;
DELETE FROM command_match_rows;
