-- `style audit sql` over exports loaded in memory: no file or network access from here on.
-- No parameters.
SET enable_external_access = false;
