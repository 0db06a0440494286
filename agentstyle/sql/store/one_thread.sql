-- A connection that evaluates hook events runs its plans on one thread. No parameters.
SET threads = 1;
