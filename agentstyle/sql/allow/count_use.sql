-- Count the uses of an allowance. Parameters: $1 allowance id.
UPDATE allowances SET uses = uses + 1 WHERE allowance_id = $1;
