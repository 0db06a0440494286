-- Migration 003: `style allow` (docs/design/cli.md#allowances): the person lets a refused call
-- through, once or for the session. Both tables are history: what was allowed, by which refusal,
-- and every use.
CREATE SEQUENCE allowance_ids START 1;
CREATE TABLE allowances (
    allowance_id BIGINT PRIMARY KEY,
    created TIMESTAMP NOT NULL,
    harness VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    event_id BIGINT NOT NULL,        -- the refused event the person answered
    rule_ids VARCHAR[] NOT NULL,     -- the rules that refused it
    native_tool VARCHAR,
    call_key VARCHAR NOT NULL,       -- same tool (or prompt) and same input: harnesses/common.py
    scope VARCHAR NOT NULL,          -- once | session
    uses INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE allowance_uses (
    allowance_id BIGINT NOT NULL,
    event_id BIGINT NOT NULL,
    rule_id VARCHAR NOT NULL
);
CREATE INDEX allowances_call ON allowances (call_key);
