-- Migration 013: the command model (docs/design/commands.md). The program grammars a policy
-- was compiled with, and its command conditions (`command "git clean" where ( … )`) as rows:
-- the names each matches and its `where` as clauses of literals, evaluated per simple command
-- (sql/evaluate/commands.sql) over the event's command rows.
CREATE TABLE IF NOT EXISTS program_grammars (
    program VARCHAR NOT NULL,
    family VARCHAR NOT NULL,         -- the family file under agentstyle/commands/programs/
    grammar VARCHAR NOT NULL         -- the program's entry of that file, as JSON
);
-- The names a command condition matches: a program and its subcommand words (`git clean`),
-- `*` for every command.
CREATE TABLE IF NOT EXISTS command_heads (
    rule_id VARCHAR NOT NULL,
    node_id INTEGER NOT NULL,        -- the condition's node in `conditions`
    head VARCHAR NOT NULL
);
-- Its `where` in disjunctive normal form: a row per literal of each clause. A literal is found
-- when one of the command's rows of its kind passes its test; a clause holds when each of its
-- literals is found exactly where it is not negated.
CREATE TABLE IF NOT EXISTS command_literals (
    rule_id VARCHAR NOT NULL,
    node_id INTEGER NOT NULL,
    clause_id INTEGER NOT NULL,
    clause_size INTEGER NOT NULL,
    negated BOOLEAN NOT NULL,
    kind VARCHAR NOT NULL,           -- opt | arg | path | text | remote | nothing | env | head
                                     -- | never
    keys VARCHAR[],                  -- opt: its canonical names
    regex VARCHAR,                   -- the value's tests, as match_rows has them
    equals VARCHAR,
    equals_num DOUBLE,
    one_of VARCHAR[],
    num DOUBLE,
    num_signs TINYINT[],
    -- path: the tests one path must pass together (a role it has, a place tag, a regex one of
    -- its forms matches), each negated or not
    path_tests STRUCT(role VARCHAR, tag VARCHAR, regex VARCHAR, neg BOOLEAN)[],
    line INTEGER,
    col INTEGER
);
-- Evaluation index: the literals of the placed rules' command conditions by the name that
-- selects them, derived by sql/policy/index_command_rows.sql.
CREATE TABLE IF NOT EXISTS command_match_rows (
    head VARCHAR NOT NULL,
    lookup_key VARCHAR NOT NULL,     -- `command#<rule>#<node>`: the field row a holding one adds
    clause_key INTEGER NOT NULL,     -- (rule, node, clause) as a number
    clause_size INTEGER NOT NULL,
    negated BOOLEAN NOT NULL,
    kind VARCHAR NOT NULL,
    keys VARCHAR[],
    regex VARCHAR,
    equals VARCHAR,
    equals_num DOUBLE,
    one_of VARCHAR[],
    num DOUBLE,
    num_signs TINYINT[],
    path_tests STRUCT(role VARCHAR, tag VARCHAR, regex VARCHAR, neg BOOLEAN)[]
);
-- Where a rule is narrowed (docs/packages.md#exceptions): its own `unless` or another package's
-- `exceptions:` entry, with the reason `plan`, `explain`, `replay` and `audit` show.
CREATE TABLE IF NOT EXISTS rule_exceptions (
    rule_id VARCHAR NOT NULL,
    package VARCHAR NOT NULL,
    reason VARCHAR NOT NULL,
    source_file VARCHAR NOT NULL,
    source_line INTEGER NOT NULL
);
-- A narrowed rule keeps its condition as written beside the narrowed one, as `shadow` clauses:
-- where they hold and the rule's own do not, an exception took effect (outcome `excepted`).
ALTER TABLE condition_clauses ADD COLUMN IF NOT EXISTS shadow BOOLEAN DEFAULT false;
ALTER TABLE match_rows ADD COLUMN IF NOT EXISTS shadow BOOLEAN DEFAULT false;
-- A clause of an inlined command condition (policy/lowercommands.py) is read on a simple
-- command's own events, routed by the name it matches: `cmd` (the command), `cmdpath` (one of
-- its paths, when a path test correlates one path), `cmdfrom` (one command whose output reaches
-- it), `cmdfrompath` (and one path of that one): `route_kind=route_head`.
ALTER TABLE condition_clauses ADD COLUMN IF NOT EXISTS route_head VARCHAR;
ALTER TABLE condition_clauses ADD COLUMN IF NOT EXISTS route_kind VARCHAR;
-- The event's fields the inlined clauses read beside the command's own (copied to its events).
ALTER TABLE point_flags ADD COLUMN IF NOT EXISTS command_keys VARCHAR[];
