-- Count the uses of an allowance. Parameters: $allowance_id.
UPDATE allowances SET uses = uses + 1 WHERE allowance_id = $allowance_id;
