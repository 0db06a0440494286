-- Bulk insert of batch field rows: lists of seq, field, idx, value.
INSERT INTO batch_fields SELECT unnest($1), unnest($2), unnest($3), unnest($4);
