-- Migration 011: the layer of each package and rule (docs/design/storage.md#layers). One
-- database holds every policy that applies where it evaluates: the organisation's (`managed`),
-- the user's and the project's; explain, audit and replay name the layer, and `style allow`
-- never lifts a managed rule. `answered` is what makes one event answered once when two STYLE
-- handlers fire for it (a user and a project install): the first evaluation keeps its verdict
-- under the event's identity, and a later handler of the same identity repeats a refusal and
-- adds nothing else (docs/design/runtime.md#answered-once).
ALTER TABLE packages ADD COLUMN layer VARCHAR NOT NULL DEFAULT 'project';
ALTER TABLE rules ADD COLUMN layer VARCHAR NOT NULL DEFAULT 'project';
CREATE TABLE answered (
    identity VARCHAR PRIMARY KEY,    -- harness, session, native event, call id or payload digest
    event_id BIGINT,
    verdict VARCHAR,                 -- block | ask | allow | NULL
    reasons VARCHAR[] NOT NULL,
    ts TIMESTAMP NOT NULL
);
