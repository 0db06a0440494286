-- Migration 004: a package may have its refusals carry a short allow code the person types
-- (`style allow CODE`, evaluator/allowances.py); the package field `allow_code`, off by default.
ALTER TABLE packages ADD COLUMN IF NOT EXISTS allow_code BOOLEAN DEFAULT false;
