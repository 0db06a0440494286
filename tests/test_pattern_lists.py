"""A rule's shapes one a line (docs/conditions.md#a-list-of-patterns, docs/actions.md#redact):
`regex [...]` holds where any of its patterns matches, `redact.patterns` replaces each in turn,
`redact.keep` leaves the matches it finds in, and a list setting fills secret names into both.
Run through the real compiler and evaluator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from agentstyle.evaluator.compiled import memory_policy
from agentstyle.evaluator.evaluate import decide
from agentstyle.evaluator.store import rolled_back
from agentstyle.harnesses.claude_code import ADAPTER
from agentstyle.policy.prefilter import any_literal
from agentstyle.policy.re2 import any_of
from agentstyle.policy.settingrefs import uncaptured
from bench.corpus.secrets import bash_output

PACKAGE = """\
spec: style/v0.3
name: lists
version: 1.0.0
description: pattern lists
settings:
  - name: secret_names
    type: list
    description: names whose values are secrets
    default:
      - passw(or)?d   # DB_PASSWORD=, PASSWD=: its group must not move `with`'s \\2
      - api_?key      # API_KEY=, APIKEY=
rules:
  - id: tokens
    reason: A token in the output is a credential the model must not see.
    target: tool
    tool: shell
    action: redact
    when: |
      tool.output regex [
        r"ghp_[A-Za-z0-9]{8}",   # GitHub
        r"(?i)npm_[a-z0-9]{8}",  # npm, either case: its flag stays its own
      ]
    redact:
      patterns:
        - '\\bghp_[A-Za-z0-9]{8,}'
        - '(?i)\\bnpm_[a-z0-9]{8,}'
      with: '[token removed]'
    text: A token was removed.
  - id: assignments
    reason: A value under a name that says it is a secret is a credential.
    target: tool
    tool: shell
    action: redact
    when: 'tool.output regex r"(?i){{settings.secret_names}}=\\w*[0-9]"'
    redact:
      pattern: '(?i)(\\w*{{settings.secret_names}}=)\\w*[0-9]\\w*(;|\\s)'
      with: '\\1[removed]\\2'
    text: A secret was removed.
  - id: cursors
    reason: A session's token is a credential; a page's cursor under a token's name is none.
    target: tool
    tool: shell
    action: redact
    when: 'tool.output regex r"(?i)token=\\w{12}"'
    redact:
      pattern: '(?i)(\\b\\w*token=)\\w{12,}'
      with: '\\1[removed]'
      keep:
        - '(?i)^(next|page)'   # NextToken=, pageToken=: a cursor
        - 'X{12}'              # a placeholder
    text: A token was removed.
  - id: quiet
    reason: Says when the output holds none of the words of a failure at all.
    target: tool
    tool: shell
    action: warn
    when: 'tool.output not_regex ["(?i)error", "FAIL", ]'
    text: No failure.
"""


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root: Path = tmp_path_factory.mktemp("lists")
    (root / "STYLE.yaml").write_text(PACKAGE, encoding="utf-8")
    conn, _compiled = memory_policy([str(root)], "claude-code")
    yield conn
    conn.close()


def run(conn: duckdb.DuckDBPyConnection, stdout: str) -> tuple[set[str], str]:
    """The rules that fired on a Bash call printing `stdout`, and what the model reads."""
    payload = bash_output(stdout, "/tmp")
    response = payload["tool_response"]
    with rolled_back(conn):
        [evaluation] = decide(conn, [ADAPTER.normalize(payload, "PostToolUse")])
    decision = evaluation.decision
    fired = {r.split("/")[-1] for r in decision.rules}
    if decision.redaction is not None:
        fired |= {r.split("/")[-1] for r in decision.redaction.rules}
    shown = decision.redaction.output if decision.redaction is not None else response
    return fired, json.dumps(shown)


def test_any_pattern_of_the_list_holds_and_each_is_replaced(policy: Any) -> None:
    fired, shown = run(policy, "GH=ghp_aB3dE5gH7 NPM=NPM_ZX81TQ4A9")
    assert {"tokens", "quiet"} <= fired
    assert "GH=[token removed] NPM=[token removed]" in shown


def test_a_flag_of_one_pattern_does_not_reach_the_next() -> None:
    joined = any_of(["(?i)npm_[a-z]{8}", "ghp_[a-z]{8}"])
    assert joined == "(?i:npm_[a-z]{8})|ghp_[a-z]{8}"
    conn = duckdb.connect()
    matches = conn.execute(
        "SELECT regexp_matches('GHP_abcdefgh', $p), regexp_matches('NPM_abcdefgh', $p)",
        {"p": joined},
    ).fetchone()
    assert matches == (False, True)


def test_a_shared_flag_is_said_once_so_the_prefilter_reads_it() -> None:
    joined = any_of(["(?i)token=", "(?i)passwd="])
    assert joined == "(?i)token=|passwd="
    found = any_literal(joined)
    assert found is not None and found.case_insensitive
    assert sorted(found.literal.split("\x1f")) == ["passwd=", "token="]


def test_a_list_setting_fills_the_names_into_when_and_redact(policy: Any) -> None:
    fired, shown = run(policy, "DB_PASSWORD=hunter42;\nAPIKEY=k9k9k9\nDEBUG=1\n")
    assert "assignments" in fired
    assert "DB_PASSWORD=[removed];\\nAPIKEY=[removed]\\nDEBUG=1" in shown


def test_a_group_in_a_setting_is_not_one_of_the_patterns_groups() -> None:
    assert uncaptured(r"passw(or)?d|[(]x\(|(?:y)") == r"passw(?:or)?d|[(]x\(|(?:y)"


def test_output_no_pattern_matches_is_left_alone(policy: Any) -> None:
    fired, shown = run(policy, "build FAILED: ghp_ short, DB_PASSWORD=$DB_PASSWORD")
    assert fired == set()
    assert "ghp_ short" in shown


def test_not_regex_of_a_list_holds_where_none_matches(policy: Any) -> None:
    assert "quiet" in run(policy, "all good")[0]
    assert "quiet" not in run(policy, "Error: 2 FAIL")[0]


def test_keep_leaves_the_matches_it_finds_in_and_takes_the_others(policy: Any) -> None:
    fired, shown = run(policy, "NextToken=abcdefghijkl12 SessionToken=abcdefghijkl12")
    assert "cursors" in fired
    assert "NextToken=abcdefghijkl12 SessionToken=[removed]" in shown


def test_a_rule_whose_every_match_is_kept_tells_nothing(policy: Any) -> None:
    out = "pageToken=abcdefghijkl12\nAPI_TOKEN=XXXXXXXXXXXXXXXX\n"
    fired, shown = run(policy, out)
    assert "cursors" not in fired
    assert json.dumps(out)[1:-1] in shown
    # recorded apart from a firing (audit/rules.sql does not count it)
    with rolled_back(policy):
        [evaluation] = decide(policy, [ADAPTER.normalize(bash_output(out, "/tmp"), "PostToolUse")])
    outcomes = {c.rule_id.split("/")[-1]: c.outcome for c in evaluation.candidates}
    assert outcomes["cursors"] == "nothing-redacted"


def test_a_text_keep_cannot_split_has_every_match_taken(policy: Any) -> None:
    # NUL and SOH mark the matches (evaluate/redact_apply.sql): a text that holds them already
    # loses the kept match too, never keeps the secret
    fired, shown = run(policy, "\x01 NextToken=abcdefghijkl12 SessionToken=abcdefghijkl12")
    assert "cursors" in fired
    assert "NextToken=[removed] SessionToken=[removed]" in shown
