-- Migration 001: the policy tables, the session state and the history (docs/design/storage.md).
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);

-- Policy: replaced atomically by install/sync/import, never edited in place.
CREATE TABLE packages (
    name VARCHAR PRIMARY KEY,
    version VARCHAR NOT NULL,
    priority INTEGER NOT NULL,
    source VARCHAR NOT NULL,
    digest VARCHAR NOT NULL,
    pkg_order INTEGER NOT NULL,      -- evaluation order: priority desc, then name
    per_rule INTEGER NOT NULL,
    per_event INTEGER NOT NULL
);
CREATE TABLE rules (
    rule_id VARCHAR PRIMARY KEY,     -- qualified: package/rule
    package VARCHAR NOT NULL,
    local_id VARCHAR NOT NULL,
    target VARCHAR NOT NULL,
    action VARCHAR NOT NULL,
    timing VARCHAR,                  -- `at`: before | after
    repeat VARCHAR,
    fail VARCHAR NOT NULL,
    refresh INTEGER NOT NULL,
    reinject BOOLEAN NOT NULL,
    mode VARCHAR NOT NULL,
    priority INTEGER NOT NULL,
    max_tokens INTEGER NOT NULL,
    enabled BOOLEAN NOT NULL,
    decl_order INTEGER NOT NULL,     -- position in its package
    rule_order INTEGER NOT NULL,     -- global order: package order, then decl_order
    event VARCHAR,
    sources VARCHAR[] NOT NULL,
    harnesses VARCHAR[],             -- when.harness; NULL = every harness
    body_template VARCHAR NOT NULL,
    model_text_template VARCHAR,
    is_static BOOLEAN NOT NULL,
    has_condition BOOLEAN NOT NULL,
    uses_rule_state BOOLEAN NOT NULL,
    source_file VARCHAR NOT NULL,
    source_line INTEGER NOT NULL,
    source_column INTEGER NOT NULL
);
CREATE TABLE rule_tools (
    rule_id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,           -- tool | native | mcp | skill
    pattern VARCHAR NOT NULL,
    regex VARCHAR NOT NULL           -- anchored RE2 for tool/mcp/skill globs
);
CREATE TABLE conditions (
    rule_id VARCHAR NOT NULL,
    node_id INTEGER NOT NULL,
    parent_id INTEGER,
    kind VARCHAR NOT NULL,           -- and | or | not | pred
    field VARCHAR,                   -- as written
    lookup_field VARCHAR,            -- the event field row evaluated (shell_regex reads shell.commands)
    field_regex VARCHAR,             -- for fields with `*` segments
    op VARCHAR,                      -- as written
    base_op VARCHAR,                 -- the positive operator
    pattern VARCHAR,
    regex VARCHAR,                   -- RE2 for regex/glob ops
    num DOUBLE,                      -- numeric pattern
    list_values VARCHAR[],           -- for `in`
    line INTEGER,
    col INTEGER
);
-- The condition tree in disjunctive normal form: the rule holds when every literal of one
-- clause holds. Computed at compile time so evaluation is one join, whatever the depth.
CREATE TABLE condition_clauses (
    rule_id VARCHAR NOT NULL,
    clause_id INTEGER NOT NULL,
    node_id INTEGER NOT NULL,
    negated BOOLEAN NOT NULL,
    clause_size INTEGER NOT NULL
);
CREATE TABLE templates (
    template_id VARCHAR NOT NULL,
    pos INTEGER NOT NULL,
    kind VARCHAR NOT NULL,           -- text | var
    text VARCHAR,
    var VARCHAR,
    default_value VARCHAR
);
CREATE TABLE settings (
    package VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    value VARCHAR
);
CREATE TABLE entries (
    rule_id VARCHAR NOT NULL,
    harness VARCHAR NOT NULL,
    point VARCHAR,                   -- NULL when the rule is not placed (skipped, disabled)
    native_event VARCHAR,
    matcher VARCHAR,
    status VARCHAR NOT NULL,         -- native | partial | degraded | static | skipped | install-error
    reason VARCHAR,
    effective_action VARCHAR NOT NULL,
    effective_repeat VARCHAR,
    capability VARCHAR
);

-- Session state and history: appended by every hook.
CREATE TABLE sessions (
    harness VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    generation INTEGER NOT NULL,
    compaction INTEGER NOT NULL,
    prompt_count INTEGER NOT NULL,
    model VARCHAR,                   -- remembered from SessionStart: later events lack it
    first_seen TIMESTAMP NOT NULL,
    last_seen TIMESTAMP NOT NULL,
    PRIMARY KEY (harness, session_id)
);
CREATE SEQUENCE event_ids START 1;
CREATE TABLE events (
    event_id BIGINT PRIMARY KEY,
    ts TIMESTAMP NOT NULL,
    harness VARCHAR NOT NULL,
    native_event VARCHAR NOT NULL,
    point VARCHAR,
    session_id VARCHAR,
    turn_id VARCHAR,
    generation INTEGER,
    compaction INTEGER,
    prompt_count INTEGER,
    tool VARCHAR,
    native_tool VARCHAR,
    call_id VARCHAR,
    failed BOOLEAN NOT NULL DEFAULT false,
    cwd VARCHAR,
    verdict VARCHAR,
    latency_us BIGINT,
    error VARCHAR
);
CREATE TABLE event_fields (
    event_id BIGINT NOT NULL,
    field VARCHAR NOT NULL,
    idx INTEGER NOT NULL,
    value VARCHAR
);
CREATE TABLE hits (
    event_id BIGINT NOT NULL,
    rule_id VARCHAR NOT NULL,
    point VARCHAR,
    outcome VARCHAR NOT NULL,
    tokens INTEGER NOT NULL DEFAULT 0,
    detail VARCHAR
);
CREATE TABLE claims (
    claim_key VARCHAR NOT NULL,
    harness VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    rule_id VARCHAR NOT NULL,
    event_id BIGINT NOT NULL,
    prompt_count INTEGER NOT NULL
);
CREATE INDEX claims_key ON claims (claim_key);
CREATE INDEX events_session ON events (harness, session_id);
CREATE INDEX hits_rule ON hits (rule_id);
