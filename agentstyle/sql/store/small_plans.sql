-- A connection that evaluates hook events skips two optimizer passes that cost more than they
-- give on its plans of a few rows: statistics propagation and common-subplan detection
-- (0.2 to 0.3 ms of planning per answer, bench/eval_bench.py). Either only speeds up plans
-- over many rows; neither changes a result. No parameters.
SET disabled_optimizers = 'statistics_propagation,common_subplan';
