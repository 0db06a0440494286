-- Bulk insert of rendered bodies: lists of seq, rule_id, text, model_text, hash, tokens,
-- truncated, error.
INSERT INTO batch_rendered
SELECT unnest($1), unnest($2), unnest($3), unnest($4), unnest($5), unnest($6), unnest($7),
       unnest($8);
