-- Bulk insert of batch events: one bound list per column of batch_events, in order.
INSERT INTO batch_events
SELECT unnest($1), unnest($2), unnest($3), unnest($4), unnest($5), unnest($6), unnest($7),
       unnest($8), unnest($9), unnest($10), unnest($11), unnest($12), unnest($13), unnest($14),
       unnest($15), unnest($16), unnest($17), unnest($18);
