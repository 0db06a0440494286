-- Dedup keys claimed: lists of claim_key, harness, session_id, rule_id, event_id, prompt_count.
INSERT INTO claims SELECT unnest($1), unnest($2), unnest($3), unnest($4), unnest($5), unnest($6);
