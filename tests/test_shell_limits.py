"""No input makes the shell analysis drop a command silently
(docs/design/shell.md#shell-incomplete).

The stress command holds 20,000 simple commands, a `$(` substitution nested 500 deep and 1 MB
of heredocs. The analysis must show every command or say it is incomplete; here it does both
(every command is there, and the nesting past the parser's depth is flagged), and the hook
answers it the way the guards decide. How long it takes is measured in bench/shell_bench.py,
never asserted here.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from agentstyle.shell import parse_shell
from tests.support.environment import CROWD_ENV, REPO
from tests.support.packages import package_text
from tests.support.project import Project


def stress_command() -> str:
    segments = "\n".join(f"echo step{i} && touch out/f{i}" for i in range(10_000))
    deep = "echo " + "$(" * 500 + "git reset --hard" + ")" * 500
    line = "lorem ipsum dolor sit amet " * 4 + "\n"
    heredocs = "".join(
        f"cat > doc{i}.txt <<'EOF{i}'\n" + line * 95 + f"EOF{i}\n" for i in range(100)
    )
    return "rm -rf /\n" + segments + "\n" + deep + "\n" + heredocs + "rm -rf ~\n"


STRESS = stress_command()


def test_stress_input_has_the_promised_size() -> None:
    assert STRESS.count("touch out/f") + STRESS.count("echo step") == 20_000
    assert STRESS.count("$(") == 500
    heredoc_bytes = sum(len(part.split("\nEOF", 1)[0]) for part in STRESS.split("<<'EOF")[1:])
    assert heredoc_bytes >= 1_000_000


def test_stress_every_command_or_the_flag() -> None:
    result = parse_shell(STRESS)
    commands = set(result.commands)
    missing = [i for i in range(10_000) if f"touch out/f{i}" not in commands]
    assert missing == []
    assert {"rm -rf /", "rm -rf ~", "git reset --hard", "cat", "cat > doc99.txt"} <= commands
    assert not any("lorem ipsum" in c for c in commands)  # heredoc bodies are data
    assert "nesting-limit" in " ".join(result.issues)  # the deep part was split lexically


@pytest.mark.parametrize(
    ("command", "element"),
    [
        ("$(" * 500 + "rm -rf /" + ")" * 500, "rm -rf /"),
        ("echo " + "`" * 1 + "$(" * 300 + "rm -rf /" + ")" * 300 + "`", "rm -rf /"),
        ("( " * 500 + "rm -rf /" + " )" * 500, "rm -rf /"),  # `((` unspaced is arithmetic
        ("{ " * 300 + "rm -rf /;" + " }" * 300, "rm -rf /"),
        ("if true; then " * 300 + "rm -rf /;" + " fi" * 300, "rm -rf /"),
    ],
    ids=["substitutions", "backticks", "subshells", "groups", "ifs"],
)
def test_deep_nesting_of_every_construct(command: str, element: str) -> None:
    result = parse_shell(command)
    assert element in result.commands
    assert result.incomplete


def test_a_megabyte_heredoc_into_a_shell_is_walked_or_split() -> None:
    body = "echo hello world\n" * 60_000 + "rm -rf /\n"
    result = parse_shell(f"bash <<'EOF'\n{body}EOF\n")
    assert "rm -rf /" in result.commands


def test_incomplete_text_is_never_a_quiet_allow_of_what_follows() -> None:
    result = parse_shell("echo 'oops\nrm -rf /")
    assert result.incomplete
    assert any("rm -rf /" in c for c in result.commands)


PACKAGE = package_text(
    "stress",
    """
- id: partial
  target: tool
  tool: shell
  action: block
  when: 'exists(shell.incomplete)'
  text: "STYLE stress/partial: the command was not fully analysed."
""",
    description="says when the analysis was incomplete",
)


def test_stress_through_the_hook(project: Project) -> None:
    guard = REPO / "agentstyle" / "library" / "guard-destructive"
    folder = project.write_package(textwrap.dedent(PACKAGE), name="stress")
    project.install(str(guard), str(folder))
    payload = project.payload("PreToolUse.bash-rm-rf.json")
    payload["tool_input"]["command"] = STRESS
    # What the guards decide on it is the subject, not how long a loaded machine takes: the
    # crowd's deadline (the hook's own budget is bench/shell_bench.py's)
    result = project.hook("PreToolUse", payload, env=CROWD_ENV)
    answer = result.json
    assert answer is not None, result.stderr
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert "rm-outside-project" in reason  # the guard saw `rm -rf /` among the commands
    assert "stress/partial" in reason  # and the event said the analysis was incomplete
    assert json.dumps(answer).count("\n") == 0


TOKENS = [
    "rm",
    "-rf",
    "/",
    "git",
    "push",
    "-f",
    "$(",
    ")",
    "`",
    "'",
    '"',
    "\\",
    "\n",
    ";",
    "&&",
    "||",
    "|",
    "&",
    "<<",
    "EOF",
    "<<<",
    "<",
    ">",
    ">>",
    "2>&1",
    "${",
    "}",
    "{",
    "(",
    "((",
    "))",
    "$((",
    "[[",
    "]]",
    "[",
    "]",
    "if",
    "then",
    "fi",
    "for",
    "in",
    "do",
    "done",
    "case",
    "esac",
    ";;",
    "while",
    "function",
    "f()",
    "=",
    "x=",
    "$x",
    "${x:-y}",
    "${#x}",
    "*",
    "?",
    "~",
    "bash",
    "-c",
    "sh",
    "eval",
    "xargs",
    "find",
    "-exec",
    "{}",
    "\\;",
    "sudo",
    "env",
    "-S",
    "python3",
    "os.system(",
    "node",
    "echo",
    "printf",
    "%s",
    "base64",
    "-d",
    "cd",
    "..",
    "alias",
    "trap",
    "source",
    ".",
    "<(",
    ">(",
    "coproc",
    "time",
    "!",
    "$@",
    "$1",
    "=~",
    "@(",
    "$'",
    "#",
    "tee",
    "cat",
    "x.sh",
    "at",
    "git",
    "config",
    "alias.x",
    "core.pager=",
    "HOME=/",
    "IFS=,",
    "read",
    "export",
    "local",
    "arr=(",
    "${arr[@]}",
    "select",
    "until",
    "elif",
    "else",
]


def test_random_token_soup_never_breaks_the_analysis() -> None:
    """Seeded random text from shell tokens: every input gets an answer, never an exception,
    and never the safety net's `analysis-error` (which would mean a bug was hidden)."""
    import random

    rng = random.Random(13)
    for _ in range(3000):
        text = "".join(
            rng.choice(TOKENS) + rng.choice(("", " ", " ")) for _ in range(rng.randint(1, 40))
        )
        result = parse_shell(text, "/tmp/nowhere")
        assert not any(i.startswith("analysis-error") for i in result.issues), (text, result)


def test_many_files_written_flag_only_when_a_forgotten_one_is_run() -> None:
    writes = "".join(f"cat > f{i}.sh <<'EOF'\nrm -rf /\nEOF\n" for i in range(300))
    assert not parse_shell(writes).incomplete  # writing files is no limit of the analysis
    assert "rm -rf /" in parse_shell(writes + "bash f0.sh").commands  # remembered: read
    result = parse_shell(writes + "bash f299.sh")  # past what is remembered: said so
    assert "script-limit" in result.issues
