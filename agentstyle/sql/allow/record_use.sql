-- Record one use of an allowance. Parameters: $1 allowance id, $2 event id, $3 rule id.
INSERT INTO allowance_uses VALUES ($1, $2, $3);
