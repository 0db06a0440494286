-- A `once` allowance the person extends to the rest of the session (`style allow ID --session`
-- after `style allow ID`). Parameters: $allowance_id.
UPDATE allowances SET scope = 'session' WHERE allowance_id = $allowance_id;
