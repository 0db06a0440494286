-- `style doctor`'s layers section: how many installed rules each layer has in this database.
-- Result: layer, rules.
SELECT layer, count(*) AS rules FROM rules GROUP BY layer ORDER BY layer;
