-- Evaluation index (schema 005): a row per (route, rule, clause, literal) of every placed
-- entry. Tool globs are matched here against the normalized tool names, once per install, so
-- an event finds its candidates by its route keys alone; each literal carries the one test its
-- operator needs (a required literal first, then a regex, an exact value, a list or a number).
-- Parameters: $tools, the normalized tool names (vocabulary.TOOLS). Run after index_placed.sql.
INSERT INTO match_rows
WITH reach AS (
    -- system and event targets: any event at the point; at session.start one of its sources
    SELECT p.harness, p.point, p.rule_id, '*' AS route_key, NULL AS name_regex
    FROM placed p
    JOIN rules r ON r.rule_id = p.rule_id AND r.target IN ('system', 'event')
    WHERE p.point <> 'session.start'
    UNION ALL
    SELECT harness, point, rule_id, 'source=' || source, NULL
    FROM (SELECT p.harness, p.point, p.rule_id, unnest(r.sources) AS source
          FROM placed p
          JOIN rules r ON r.rule_id = p.rule_id AND r.target IN ('system', 'event')
          WHERE p.point = 'session.start')
    UNION ALL
    -- tool targets: the normalized tools their globs select (not for MCP or skill calls)
    SELECT DISTINCT p.harness, p.point, p.rule_id, 'tool=' || t.tool, NULL
    FROM placed p
    JOIN rules r ON r.rule_id = p.rule_id AND r.target = 'tool'
    JOIN rule_tools rt ON rt.rule_id = p.rule_id AND rt.kind = 'tool'
    JOIN (SELECT unnest($tools) AS tool) t ON regexp_matches(t.tool, rt.regex)
    UNION ALL
    -- native tool names: any call of that tool (an mcp target's only when it is an MCP call)
    SELECT p.harness, p.point, p.rule_id,
           CASE r.target WHEN 'mcp' THEN 'mcp-native=' ELSE 'native=' END || rt.pattern, NULL
    FROM placed p
    JOIN rules r ON r.rule_id = p.rule_id AND r.target IN ('tool', 'mcp')
    JOIN rule_tools rt ON rt.rule_id = p.rule_id AND rt.kind = 'native'
    UNION ALL
    -- MCP servers and skills: every such call, the glob tested on its server or skill name
    -- (a tool rule with `mcp` in its tool list: every MCP call)
    SELECT p.harness, p.point, p.rule_id, rt.kind,
           CASE WHEN rt.pattern = '*' THEN NULL ELSE rt.regex END
    FROM placed p
    JOIN rules r ON r.rule_id = p.rule_id AND r.target IN ('mcp', 'skill', 'tool')
    JOIN rule_tools rt ON rt.rule_id = p.rule_id
        AND (rt.kind = r.target OR (r.target = 'tool' AND rt.kind = 'mcp'))
),
-- A regex's required literal: of its runs, the one the fewest of the policy's patterns share
-- (then the longest), so that most values fail the cheap test before the regex.
runs AS (
    SELECT rule_id, node_id, unnest(literals) AS run FROM conditions WHERE literals IS NOT NULL
),
shared AS (
    SELECT run, count(*) AS n FROM runs GROUP BY run
),
chosen AS (
    SELECT r.rule_id, r.node_id, arg_min(r.run, s.n * 1000000 - length(r.run)) AS literal
    FROM runs r
    JOIN shared s ON s.run = r.run
    GROUP BY r.rule_id, r.node_id
),
literals AS (
    SELECT cc.rule_id, cc.clause_id, cc.clause_size, cc.negated, cc.shadow, cc.route_head,
           cc.route_kind,
           CASE WHEN c.lookup_field IN ('state.rule_hits', 'state.since_last_s')
                THEN c.lookup_field || '@' || c.rule_id
                ELSE coalesce(c.field_regex, c.lookup_field) END AS lookup_key,
           CASE c.base_op
               WHEN 'contains' THEN c.pattern
               WHEN 'starts_with' THEN c.pattern
               WHEN 'ends_with' THEN c.pattern
               ELSE coalesce(ch.literal, c.literal) END AS literal,
           c.base_op NOT IN ('contains', 'starts_with', 'ends_with')
               AND coalesce(c.literal_ci, false) AS literal_ci,
           c.any_literal,
           CASE c.base_op
               WHEN 'starts_with' THEN '^' || regexp_replace(c.pattern, '([\\.^$*+?()\[\]{}|])', '\\\1', 'g')
               WHEN 'ends_with' THEN regexp_replace(c.pattern, '([\\.^$*+?()\[\]{}|])', '\\\1', 'g') || '$'
               WHEN 'regex' THEN c.regex
               WHEN 'shell_regex' THEN c.regex
               WHEN 'glob' THEN c.regex
           END AS regex,
           CASE WHEN c.base_op = 'equals' THEN c.pattern END AS equals,
           CASE WHEN c.base_op = 'equals' THEN c.num END AS equals_num,
           CASE WHEN c.base_op = 'in' THEN c.list_values END AS one_of,
           CASE WHEN c.base_op IN ('gt', 'gte', 'lt', 'lte') THEN c.num END AS num,
           CASE c.base_op
               WHEN 'gt' THEN [1]
               WHEN 'gte' THEN [0, 1]
               WHEN 'lt' THEN [-1]
               WHEN 'lte' THEN [-1, 0]
           END::TINYINT[] AS num_signs
    FROM condition_clauses cc
    JOIN conditions c ON c.rule_id = cc.rule_id AND c.node_id = cc.node_id
    LEFT JOIN chosen ch ON ch.rule_id = c.rule_id AND ch.node_id = c.node_id
    UNION ALL
    -- no condition: one clause holding one literal that is never found, negated
    SELECT r.rule_id, 0, 1, true, false, NULL, NULL, NULL, NULL, false, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL
    FROM rules r
    WHERE NOT r.has_condition
),
-- A rule's clauses are reached by its routes; an inlined command condition's clause by the name
-- it matches, on a simple command's own events (`cmd=NAME`; `cmdpath=`, `cmdfrom=`,
-- `cmdfrompath=` for one of its paths, one command feeding it, and a path of that one:
-- policy/lowercommands.py, evaluator/commandrows.py).
routed AS (
    SELECT x.harness, x.point, x.route_key, x.name_regex, x.rule_id, l.* EXCLUDE (rule_id)
    FROM reach x
    JOIN literals l ON l.rule_id = x.rule_id AND l.route_head IS NULL
    UNION ALL
    SELECT p.harness, p.point,
           l.route_kind || '=' || l.route_head, NULL,
           p.rule_id, l.* EXCLUDE (rule_id)
    FROM placed p
    JOIN literals l ON l.rule_id = p.rule_id AND l.route_head IS NOT NULL
)
SELECT x.harness || '|' || x.point || '|' || x.route_key, x.name_regex,
       dense_rank() OVER (ORDER BY x.harness, x.point, x.rule_id, x.clause_id), x.rule_id,
       p.rule_order, p.action, p.repeat, p.status, x.clause_id, x.clause_size, x.negated,
       x.lookup_key,
       -- a set of literals (joined by chr(31): policy/prefilter.py any_literal) split once
       -- here: the literal itself, or the second test beside a required literal (schema 008)
       CASE WHEN NOT contains(x.literal, chr(31)) THEN x.literal END, x.literal_ci, x.regex,
       x.equals, x.equals_num, x.one_of, x.num, x.num_signs,
       CASE WHEN contains(x.literal, chr(31)) THEN string_split(x.literal, chr(31))
            WHEN x.any_literal IS NOT NULL THEN string_split(x.any_literal, chr(31)) END,
       x.shadow
FROM routed x
JOIN placed p ON p.harness = x.harness AND p.point = x.point AND p.rule_id = x.rule_id
ORDER BY 1, p.rule_order, x.clause_id;
