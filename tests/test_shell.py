"""Shell-aware matching: the simple commands and code a command string really runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import agentstyle.shell as shell
from agentstyle.shell import (
    MAX_ELEMENTS,
    MAX_NESTING,
    MAX_SCRIPT_BYTES,
    parse_shell,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"

# (id, command, every element of `commands`, in order)
COMMANDS: list[tuple[str, str, tuple[str, ...]]] = [
    ("and-list", "cd repo && git push -f origin", ("cd repo", "git push -f origin")),
    ("echo-mentions-push", 'echo "git push -f"', ("echo git push -f",)),
    ("grep-argument", 'git log --grep="push -f"', ("git log --grep=push -f",)),
    ("commit-message", 'git commit -m "remove rm -rf"', ("git commit -m remove rm -rf",)),
    ("assignment-prefix", "FOO=1 rm -rf /", ("FOO=1", "rm -rf /")),
    (
        "two-assignments",
        'A=1 B="x y" make',
        ("A=1", "B=x y", "make"),
    ),
    (
        "fixture-force-push",
        "cargo fmt && git commit -am 'wip' && GIT_TRACE=0 git push -f origin main",
        ("cargo fmt", "git commit -am wip", "GIT_TRACE=0", "git push -f origin main"),
    ),
    ("semicolon-or-pipe-bg", "a; b || c | d & e", ("a", "b", "c", "d", "e")),
    ("newlines", "a\nb\n\nc", ("a", "b", "c")),
    ("pipe-stderr", "make 2>&1 |& tee log", ("make", "tee log")),
    # The words keep their positions; the files are seen in a second element.
    ("redirections-dropped", "cmd > out.txt 2>&1 < in.txt", ("cmd", "cmd > out.txt < in.txt")),
    ("redirection-inside-words", "git >/dev/null reset --hard", ("git reset --hard",)),
    ("comment-dropped", "ls # rm -rf /", ("ls",)),
    ("line-continuation", "ls -la \\\n  /tmp", ("ls -la /tmp",)),
    ("bash-c", "bash -c 'git push -f'", ("bash -c git push -f", "git push -f")),
    ("sh-c", 'sh -c "rm -rf /"', ("sh -c rm -rf /", "rm -rf /")),
    ("zsh-c", "zsh -c 'rm -rf /'", ("zsh -c rm -rf /", "rm -rf /")),
    (
        "bash-lc-codex",
        "bash -lc 'git push --force-with-lease origin main'",
        (
            "bash -lc git push --force-with-lease origin main",
            "git push --force-with-lease origin main",
        ),
    ),
    (
        "bash-opts-before-c",
        "bash -o pipefail -c 'rm -rf /' name",
        ("bash -o pipefail -c rm -rf / name", "rm -rf /"),
    ),
    (
        "nested-bash-sh",
        "bash -c \"sh -c 'rm -rf /'\"",
        ("bash -c sh -c 'rm -rf /'", "sh -c rm -rf /", "rm -rf /"),
    ),
    ("eval", "eval 'rm -rf /'", ("eval rm -rf /", "rm -rf /")),
    ("eval-words", "eval rm -rf /", ("eval rm -rf /", "rm -rf /")),
    ("substitution", "$(rm -rf ~)", ("rm -rf ~", "$(rm -rf ~)")),
    (
        "substitution-in-string",
        'echo "a $(rm -rf ~) b"',
        ("rm -rf ~", "echo a $(rm -rf ~) b"),
    ),
    ("backticks", "echo `rm x`", ("rm x", "echo `rm x`")),
    # The substitution runs first, then the assignment takes its (unknown) output.
    ("assignment-substitution", "x=$(rm -rf y)", ("rm -rf y", "x=$(rm -rf y)")),
    ("process-substitution", "diff <(ls a) <(ls b)", ("ls a", "ls b", "diff <(ls a) <(ls b)")),
    ("xargs", "find . | xargs rm -rf", ("find .", "xargs rm -rf", "rm -rf")),
    ("xargs-options", "xargs -0 -n1 -I{} rm -rf {}", ("xargs -0 -n1 -I{} rm -rf {}", "rm -rf {}")),
    ("xargs-alone", "xargs", ("xargs", "echo")),  # xargs runs echo when given no command
    (
        "find-exec",
        "find . -name '*.tmp' -exec rm -f {} \\;",
        ("find . -name *.tmp -exec rm -f {} ;", "rm -f {}"),
    ),
    ("sudo", "sudo rm -rf /", ("sudo rm -rf /", "rm -rf /")),
    (
        "sudo-options",
        "sudo -E -u deploy -- rm -rf /srv",
        ("sudo -E -u deploy -- rm -rf /srv", "rm -rf /srv"),
    ),
    ("doas", "doas rm x", ("doas rm x", "rm x")),
    ("env-i", "env -i FOO=1 rm -rf /", ("env -i FOO=1 rm -rf /", "FOO=1", "rm -rf /")),
    (
        "env-split-string",
        'env -S "FOO=1 rm -rf /"',
        ("env -S FOO=1 rm -rf /", "env FOO=1 rm -rf /", "FOO=1", "rm -rf /"),
    ),
    ("timeout", "timeout 5 rm -rf /", ("timeout 5 rm -rf /", "rm -rf /")),
    (
        "timeout-options",
        "timeout -s KILL -k 1 5m rm -rf /",
        ("timeout -s KILL -k 1 5m rm -rf /", "rm -rf /"),
    ),
    ("nice", "nice -n 10 rm -rf /", ("nice -n 10 rm -rf /", "rm -rf /")),
    ("command", "command rm -rf /", ("command rm -rf /", "rm -rf /")),
    ("command-v-only-looks-up", "command -v rm", ("command -v rm",)),
    ("nohup-background", "nohup rm -rf / &", ("nohup rm -rf /", "rm -rf /")),
    ("time", "time rm -rf /", ("time rm -rf /", "rm -rf /")),
    ("stdbuf", "stdbuf -oL rm -rf /", ("stdbuf -oL rm -rf /", "rm -rf /")),
    ("exec", "exec rm -rf /", ("exec rm -rf /", "rm -rf /")),
    ("su-c", 'su - root -c "rm -rf /"', ("su - root -c rm -rf /", "rm -rf /")),
    (
        "wrapper-chain",
        "sudo env A=1 nice timeout 5 git push -f",
        (
            "sudo env A=1 nice timeout 5 git push -f",
            "env A=1 nice timeout 5 git push -f",
            "A=1",
            "nice timeout 5 git push -f",
            "timeout 5 git push -f",
            "git push -f",
        ),
    ),
    ("absolute-path", "/usr/bin/git push -f", ("/usr/bin/git push -f", "git push -f")),
    (
        "docker-exec",
        "docker exec -it -u postgres db psql -c 'DROP TABLE x'",
        ("docker exec -it -u postgres db psql -c DROP TABLE x", "psql -c DROP TABLE x"),
    ),
    (
        "docker-compose-exec",
        "docker compose -f dc.yml exec -T db rm -rf /data",
        ("docker compose -f dc.yml exec -T db rm -rf /data", "rm -rf /data"),
    ),
    ("docker-compose-v1-exec", "docker-compose exec web ls", ("docker-compose exec web ls", "ls")),
    ("podman-exec-env", "podman exec --env A=1 web ls", ("podman exec --env A=1 web ls", "ls")),
    ("docker-exec-no-command", "docker exec -it db", ("docker exec -it db",)),
    ("docker-run-not-unwrapped", "docker run --rm alpine ls", ("docker run --rm alpine ls",)),
    (
        "kubectl-exec",
        "kubectl exec -it pod-1 -c main -- rm -rf /data",
        ("kubectl exec -it pod-1 -c main -- rm -rf /data", "rm -rf /data"),
    ),
    ("kubectl-get", "kubectl get pods", ("kubectl get pods",)),
    (
        "kubectl-namespace-first",
        "kubectl -n prod exec pg-0 -- psql",
        ("kubectl -n prod exec pg-0 -- psql", "psql"),
    ),
    (
        "docker-global-options",
        "docker --context prod compose exec db ls",
        ("docker --context prod compose exec db ls", "ls"),
    ),
    (
        "ssh-remote-command",
        "ssh -i key.pem -p 2222 prod 'cd /srv && rm -rf old'",
        (
            "ssh -i key.pem -p 2222 prod cd /srv && rm -rf old",
            "cd /srv",
            "rm -rf /srv/old",  # where it runs on that host (after `cd /srv &&`, only there)
        ),
    ),
    ("ssh-words", "ssh prod rm -rf /tmp/x", ("ssh prod rm -rf /tmp/x", "rm -rf /tmp/x")),
    ("ssh-login-only", "ssh prod", ("ssh prod",)),
    (
        "git-config-stays-one",
        "git -c user.email=x@y.z commit -m hi",
        ("git -c user.email=x@y.z commit -m hi",),
    ),
    ("if", "if true; then rm -rf x; fi", ("true", "rm -rf x")),
    (
        "if-elif-else",
        "if a; then b; elif c; then d; else e; fi",
        ("a", "b", "c", "d", "e"),
    ),
    ("for", 'for f in *; do rm -rf "$f"; done', ("rm -rf *",)),  # f holds each word of the list
    ("for-substitution", "for f in $(ls); do rm $f; done", ("ls", "rm $(ls)")),
    ("while", "while read l; do rm $l; done < list", ("< list", "read l", "rm $l")),
    ("until", "until false; do sleep 1; done", ("false", "sleep 1")),
    ("case", "case $1 in go) git push -f;; *) ls;; esac", ("git push -f", "ls")),
    ("subshell", "(cd a; rm b) && c", ("cd a", "rm b", "rm a/b", "c")),
    ("group", "{ rm a; rm b; }", ("rm a", "rm b")),
    ("function", "f() { rm -rf /; }; f", ("f", "rm -rf /")),
    ("negation", "! git diff --quiet", ("git diff --quiet",)),
    ("test-bracket", '[ -f x ] && rm "x"', ("[ -f x ]", "rm x")),
    ("test-double-bracket", '[[ -n "$x" ]] || exit 1', ("[[ -n $x ]]", "exit 1")),
    (
        "export-assignment",
        'export GIT_AUTHOR_EMAIL="a@b.c"',
        ("export GIT_AUTHOR_EMAIL=a@b.c", "GIT_AUTHOR_EMAIL=a@b.c"),
    ),
    ("bare-assignments", "a=1 b=2", ("a=1", "b=2")),
    ("unset", "unset GIT_DIR", ("unset GIT_DIR",)),
    ("quote-removal", "'rm' \"-rf\" \\/", ("rm -rf /",)),
    ("concatenated-quotes", "echo a\"b\"c'd'", ("echo abcd",)),
    ("escaped-space", "touch a\\ b", ("touch a b",)),
    ("double-quote-escapes", 'echo "x\\"y \\$HOME \\n"', ('echo x"y $HOME \\n',)),
    ("ansi-c", "echo $'a\\tb\\x41\\n'", ("echo a\tbA\n",)),
    # `x` is set nowhere: its default is what runs; $HOME is the environment's.
    ("expansions-kept", 'echo "$HOME" ${x:-y} $((1+2))', ("echo $HOME y $((1+2))",)),
    ("heredoc-cat", "cat <<EOF\nrm -rf /\nEOF", ("cat",)),
    ("heredoc-to-file", "cat > x.json <<'EOF'\n{}\nEOF\nls", ("cat", "cat > x.json", "ls")),
    ("heredoc-then-and", "cat <<EOF && git push -f\nbody\nEOF", ("cat", "git push -f")),
    (
        "heredoc-unquoted-substitution-runs",
        "cat <<EOF\nhi $(rm -rf /)\nEOF",
        ("rm -rf /", "cat"),
    ),
    ("heredoc-quoted-is-literal", "cat <<'EOF'\nhi $(rm -rf /)\nEOF", ("cat",)),
    ("heredoc-python-dash", "python3 - <<'PY'\nimport shutil\nPY", ("python3 -",)),
    ("heredoc-dash-attached", "cat -<<EOF\nx\nEOF", ("cat -",)),
    ("heredoc-into-bash", "bash <<EOF\ngit push -f\nEOF", ("bash", "git push -f")),
    ("heredoc-piped-into-sh", "cat <<EOF | sh\nrm -rf /\nEOF", ("cat", "sh", "rm -rf /")),
    ("echo-piped-into-sh", "echo 'rm -rf /' | sh", ("echo rm -rf /", "sh", "rm -rf /")),
    ("herestring-into-bash", "bash <<< 'rm -rf /'", ("bash", "rm -rf /")),
    ("heredoc-words-after-delimiter", "python3 <<EOF - arg\nx\nEOF", ("python3 - arg",)),
    (
        "heredoc-pipe-then-and",
        "cat <<EOF | sh && echo done\nrm x\nEOF",
        ("cat", "sh", "rm x", "echo done"),
    ),
    (
        "heredoc-and-then-pipe-is-not-fed",
        "cat <<EOF > f && ls | sh\nrm x\nEOF",
        ("cat", "cat > f", "ls", "sh"),
    ),
    ("heredoc-body-not-a-command", "cat <<EOF\ngit push -f\nEOF", ("cat",)),
    # Heredocs tree-sitter-bash cannot place on their line: rewritten as herestrings.
    ("heredoc-then-semicolon", "psql <<SQL; rm -rf /\nDROP TABLE x;\nSQL", ("psql", "rm -rf /")),
    ("heredoc-background", "psql <<SQL &\nDROP TABLE x;\nSQL", ("psql",)),
    (
        "heredoc-redirect-then-pipe",
        "python3 - <<'PY' 2>&1 | tail -5\nimport os\nPY",
        ("python3 -", "tail -5"),
    ),
    (
        "two-heredocs-one-line",
        "python3 <<A && node <<B\nprint(1)\nA\nconsole.log(2)\nB",
        ("python3", "node"),
    ),
    (
        "heredoc-rewrite-pipe-into-sh",
        "cat <<EOF | sh; ls\nrm -rf /\nEOF",
        ("cat", "sh", "rm -rf /", "ls"),
    ),
    (
        "heredoc-rewrite-unquoted-substitution-runs",
        "cat <<EOF; ls\nhi $(rm -rf /)\nEOF",
        ("rm -rf /", "cat", "ls"),
    ),
    ("heredoc-rewrite-quoted-is-literal", "cat <<'EOF'; ls\nhi $(rm -rf /)\nEOF", ("cat", "ls")),
    (
        "heredoc-rewrite-arithmetic-shift-kept",
        "echo $((1<<2)); psql <<SQL; ls\nDROP TABLE t;\nSQL",
        ("echo $((1<<2))", "psql", "ls"),
    ),
    (
        "heredoc-rewrite-then-next-line",
        "python3 - <<PY 2>/dev/null | jq .\nprint(1)\nPY\necho next",
        ("python3 -", "jq .", "echo next"),
    ),
    (
        "duplicates-once",
        'eval "$(ssh-agent -s)"',
        ("ssh-agent -s", "eval $(ssh-agent -s)"),
    ),
    (
        "env-options-then-split",
        'env -i -S "rm -rf /"',
        ("env -i -S rm -rf /", "env rm -rf /", "rm -rf /"),
    ),
    ("empty", "   ", ()),
]


@pytest.mark.parametrize(
    ("command", "expected"), [c[1:] for c in COMMANDS], ids=[c[0] for c in COMMANDS]
)
def test_commands(command: str, expected: tuple[str, ...]) -> None:
    result = parse_shell(command)
    assert result.commands == expected
    assert not result.incomplete


# (id, command, shell_regex, matches some element)
REGEX: list[tuple[str, str, str, bool]] = [
    ("force-after-cd", "cd repo && git push -f origin", r"^git push .*(--force|-f)", True),
    ("force-in-echo", 'echo "git push -f"', r"^git push .*(--force|-f)", False),
    ("force-in-grep", 'git log --grep="push -f"', r"^git push .*(--force|-f)", False),
    ("force-in-heredoc", "cat <<EOF\ngit push -f\nEOF", r"^git push .*(--force|-f)", False),
    ("force-in-bash-c", "bash -c 'git push -f'", r"^git push .*(--force|-f)", True),
    (
        "force-in-codex-fixture",
        "bash -lc 'git push --force-with-lease origin main'",
        r"^git push .*--force",
        True,
    ),
    ("rm-in-commit-message", 'git commit -m "remove rm -rf"', r"^rm -rf", False),
    ("commit-message-starts-with-commit", 'git commit -m "remove rm -rf"', r"^git commit", True),
    ("rm-after-assignment", "FOO=1 rm -rf /", r"^rm -rf /$", True),
    ("identity-assignment", "GIT_AUTHOR_EMAIL=a@b.c git commit", r"^GIT_AUTHOR_EMAIL=", True),
    ("identity-search-is-no-set", "git log --author=a@b.c", r"^GIT_AUTHOR_EMAIL=", False),
    ("rm-in-substitution", "echo $(rm -rf ~)", r"^rm -rf", True),
    ("rm-under-xargs", "find . | xargs rm -rf", r"^rm -rf", True),
    ("rm-under-sudo", "sudo rm -rf /", r"^rm -rf /", True),
    ("rm-in-for-body", 'for f in *; do rm -rf "$f"; done', r"^rm -rf", True),
    ("rm-in-if-body", "if true; then rm -rf x; fi", r"^rm -rf", True),
]


@pytest.mark.parametrize(
    ("command", "pattern", "matches"), [c[1:] for c in REGEX], ids=[c[0] for c in REGEX]
)
def test_shell_regex_semantics(command: str, pattern: str, matches: bool) -> None:
    compiled = re.compile(pattern)
    assert any(compiled.search(e) for e in parse_shell(command).commands) is matches


# (id, command, code)
CODE: list[tuple[str, str, tuple[str, ...]]] = [
    ("cat-is-no-interpreter", "cat <<EOF\nrm -rf /\nEOF", ()),
    (
        "python-heredoc",
        "python3 - <<'PY'\nimport shutil\nshutil.rmtree('x')\nPY",
        ("import shutil\nshutil.rmtree('x')\n",),
    ),
    ("python-versioned", "python3.12 <<EOF\nprint(1)\nEOF", ("print(1)\n",)),
    ("node-heredoc", "node <<'JS'\nfs.rmSync('x')\nJS", ("fs.rmSync('x')\n",)),
    ("psql-heredoc", "psql mydb <<SQL\nDROP TABLE x;\nSQL", ("DROP TABLE x;\n",)),
    ("tab-stripping-heredoc", "ruby <<-RB\n\tputs 1\n\tRB", ("puts 1\n",)),
    ("sudo-python-heredoc", "sudo python3 <<EOF > out\nprint(1)\nEOF", ("print(1)\n",)),
    ("bash-heredoc", "bash <<EOF\nrm -rf /\nEOF", ("rm -rf /\n",)),
    ("herestring", "python3 <<< 'print(1)'", ("print(1)\n",)),
    ("cat-pipe-python", "cat <<EOF | python3\nprint(2)\nEOF", ("print(2)\n",)),
    ("python-c", "python3 -c 'import os; os.remove(1)'", ("import os; os.remove(1)",)),
    ("node-e", "node -e 'process.exit(1)'", ("process.exit(1)",)),
    ("perl-pe-cluster", "perl -pe 's/a/b/' f", ("s/a/b/",)),
    ("psql-c", 'psql -c "DROP TABLE x"', ("DROP TABLE x",)),
    ("sqlite-sql-operand", 'sqlite3 app.db "DELETE FROM t"', ("DELETE FROM t",)),
    ("python-module-no-code", "python3 -m http.server", ()),
    ("heredoc-to-wc-no-code", "wc -l <<EOF\nimport os\nEOF", ()),
    ("python-dash-heredoc-gap", "python - <<EOF\nprint(3)\nEOF", ("print(3)\n",)),
    ("heredoc-with-script-is-not-stdin-code", "python x.py <<EOF\ndata\nEOF", ()),
    ("sqlite-heredoc", "sqlite3 app.db <<SQL\nDELETE FROM t;\nSQL", ("DELETE FROM t;\n",)),
    ("psql-options-after-database", "psql mydb -c 'DROP TABLE x'", ("DROP TABLE x",)),
    ("docker-exec-psql-c", "docker exec db psql -c 'DROP TABLE x'", ("DROP TABLE x",)),
    (
        "kubectl-exec-heredoc",
        "kubectl exec -i pg -- psql <<SQL\nDROP TABLE t;\nSQL",
        ("DROP TABLE t;\n",),
    ),
    ("mysql-user-then-e", "mysql -u root -e 'DROP DATABASE d'", ("DROP DATABASE d",)),
    ("mysql-attached-password", "mysql -uroot -psecret shop -e 'TRUNCATE t'", ("TRUNCATE t",)),
    ("mysql-prompted-password", "mysql -p shop -e 'SELECT 1'", ("SELECT 1",)),
    (
        "mysql-no-program-reads-stdin",
        "mysql --user root shop <<< 'DROP TABLE t'",
        ("DROP TABLE t\n",),
    ),
    ("clickhouse-client-query", "clickhouse-client -q 'DROP TABLE t'", ("DROP TABLE t",)),
    ("clickhouse-client-sub", "clickhouse client --query='DROP TABLE t'", ("DROP TABLE t",)),
    ("cockroach-sql-e", "cockroach sql --insecure -e 'TRUNCATE t'", ("TRUNCATE t",)),
    ("cockroach-start-no-code", "cockroach start --insecure --join x", ()),
    ("cqlsh-heredoc", "cqlsh db1 <<EOF\nDROP KEYSPACE k;\nEOF", ("DROP KEYSPACE k;\n",)),
    ("sqlcmd-q", "sqlcmd -S db -Q 'DROP DATABASE d'", ("DROP DATABASE d",)),
    (
        "bq-query-operand",
        "bq --location=US query --nouse_legacy_sql 'DELETE FROM t'",
        ("DELETE FROM t",),
    ),
    ("bq-ls-no-code", "bq ls ds", ()),
    (
        "wrangler-d1",
        "npx wrangler d1 execute db --remote --command 'DROP TABLE t'",
        ("DROP TABLE t",),
    ),
    ("turso-shell-operand", "turso db shell app 'DROP TABLE t'", ("DROP TABLE t",)),
    ("pipe-to-mycli", "echo 'TRUNCATE t' | mycli shop", ("TRUNCATE t\n",)),
    ("heredoc-semicolon-code", "psql <<SQL; ls\nDROP TABLE x;\nSQL", ("DROP TABLE x;\n",)),
    ("heredoc-background-code", "python3 <<-EOF &\n\tprint(1)\n\tEOF", ("print(1)\n",)),
    (
        "two-heredocs-code",
        "python3 <<A && node <<B\nprint(1)\nA\nconsole.log(2)\nB",
        ("print(1)\n", "console.log(2)\n"),
    ),
    (
        "heredoc-rewrite-keeps-quotes",
        "python3 <<'PY'; ls\nprint(\"it's\")\nPY",
        ('print("it\'s")\n',),
    ),
    (
        "heredoc-rewrite-unquoted-escapes",
        'python3 <<PY; ls\nprint("a \\" \\$HOME")\nPY',
        ('print("a \\" $HOME")\n',),
    ),
]


@pytest.mark.parametrize(("command", "code"), [c[1:] for c in CODE], ids=[c[0] for c in CODE])
def test_code(command: str, code: tuple[str, ...]) -> None:
    result = parse_shell(command)
    assert result.code == code
    assert not result.incomplete


CLEANUP = "import shutil\nshutil.rmtree('build')\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "scripts").mkdir(parents=True)
    (root / "cleanup.py").write_text(CLEANUP, encoding="utf-8")
    (root / "scripts" / "deploy.sh").write_text("git push -f origin main\n", encoding="utf-8")
    (root / "tool.js").write_text("fs.rmSync('dist')\n", encoding="utf-8")
    (root / "run.rb").write_text("FileUtils.rm_rf('tmp')\n", encoding="utf-8")
    (root / "task.pl").write_text("unlink 'x';\n", encoding="utf-8")
    (root / "latin1.py").write_bytes(b"print('caf\xe9')\n")
    (tmp_path / "outside.py").write_text("outside\n", encoding="utf-8")
    return root


# (id, command, the files whose text lands in `code`)
SCRIPTS: list[tuple[str, str, tuple[str, ...]]] = [
    ("python", "python cleanup.py", ("cleanup.py",)),
    ("python3-options", "python3 -u -W ignore cleanup.py --dry-run", ("cleanup.py",)),
    ("dot-slash", "./scripts/deploy.sh", ("scripts/deploy.sh",)),
    ("bash-script", "bash scripts/deploy.sh", ("scripts/deploy.sh",)),
    ("sh-script", "sh -e scripts/deploy.sh", ("scripts/deploy.sh",)),
    ("source", "source scripts/deploy.sh", ("scripts/deploy.sh",)),
    ("dot", ". scripts/deploy.sh", ("scripts/deploy.sh",)),
    ("node", "node tool.js", ("tool.js",)),
    ("ruby", "ruby run.rb", ("run.rb",)),
    ("perl", "perl task.pl", ("task.pl",)),
    ("after-cd", "cd scripts && bash deploy.sh", ("scripts/deploy.sh",)),
    ("cd-in-subshell-does-not-leak", "(cd scripts) && bash deploy.sh", ()),
    ("under-sudo", "sudo -u app python3 cleanup.py", ("cleanup.py",)),
    ("in-substitution", "echo $(python cleanup.py)", ("cleanup.py",)),
    ("in-bash-c", "bash -c 'python cleanup.py'", ("cleanup.py",)),
    ("stdin-redirect", "python3 < cleanup.py", ("cleanup.py",)),
    ("sh-s-stdin-redirect", "sh -s < scripts/deploy.sh", ("scripts/deploy.sh",)),
    ("read-once", "python cleanup.py && python ./cleanup.py", ("cleanup.py",)),
    ("outside-cwd", "python ../outside.py", ()),
    ("absolute-outside-cwd", "python /etc/hostname", ()),
    ("missing", "python nope.py", ()),
    ("directory", "bash scripts", ()),
    ("module-is-no-script", "python -m cleanup", ()),
    ("variable-path", "python $SCRIPT", ()),
    ("not-run-only-named", "cat cleanup.py", ()),
    ("in-container-is-not-ours", "docker exec app python cleanup.py", ()),
    ("on-ssh-host-is-not-ours", "ssh prod python cleanup.py", ()),
    ("ssh-string-is-not-ours", "ssh prod 'bash scripts/deploy.sh'", ()),
    ("kubectl-is-not-ours", "kubectl exec app -- python cleanup.py", ()),
    ("after-remote-is-ours-again", "ssh prod ls && python cleanup.py", ("cleanup.py",)),
]


@pytest.mark.parametrize(
    ("command", "files"), [c[1:] for c in SCRIPTS], ids=[c[0] for c in SCRIPTS]
)
def test_local_scripts(project: Path, command: str, files: tuple[str, ...]) -> None:
    result = parse_shell(command, cwd=str(project))
    wanted = tuple((project / f).read_text(encoding="utf-8") for f in files)
    assert result.code == wanted


def test_script_decoded_with_replacement(project: Path) -> None:
    assert parse_shell("python latin1.py", cwd=str(project)).code == ("print('caf\ufffd')\n",)


def test_no_cwd_reads_nothing(project: Path) -> None:
    assert parse_shell(f"python {project / 'cleanup.py'}").code == ()


def test_symlink_escaping_cwd_not_read(project: Path) -> None:
    (project / "link.py").symlink_to(project.parent / "outside.py")
    assert parse_shell("python link.py", cwd=str(project)).code == ()


def test_symlink_inside_cwd_is_read(project: Path) -> None:
    (project / "alias.py").symlink_to(project / "cleanup.py")
    assert parse_shell("python alias.py", cwd=str(project)).code == (CLEANUP,)


def test_symlink_to_device_not_read(project: Path) -> None:
    (project / "zero.py").symlink_to("/dev/zero")
    assert parse_shell("python zero.py", cwd=str(project)).code == ()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_not_read(project: Path) -> None:
    os.mkfifo(project / "pipe.py")
    # Opening a FIFO for reading would block until a writer comes; it must not be opened.
    assert parse_shell("python pipe.py", cwd=str(project)).code == ()


def test_large_script_not_read(project: Path) -> None:
    (project / "big.py").write_text("#" * (MAX_SCRIPT_BYTES + 1), encoding="utf-8")
    (project / "edge.py").write_text("#" * MAX_SCRIPT_BYTES, encoding="utf-8")
    assert parse_shell("python big.py", cwd=str(project)).code == ()
    assert parse_shell("python edge.py", cwd=str(project)).code == ("#" * MAX_SCRIPT_BYTES,)


def test_binary_not_read(project: Path) -> None:
    (project / "app").write_bytes(b"\x7fELF\x00\x00")
    assert parse_shell("./app", cwd=str(project)).code == ()


# (id, command, the elements still found): text bash would refuse; the parser repairs it,
# keeps every command it can see, and the result says the analysis is incomplete.
REPAIRED: list[tuple[str, str, tuple[str, ...]]] = [
    ("unterminated-single", "echo 'unterminated", ("echo unterminated",)),
    ("unterminated-double", 'echo "unterminated', ("echo unterminated",)),
    ("unterminated-substitution", "echo $(ls", ("ls", "echo $(ls")),
    ("dangling-and", "ls &&", ("ls",)),
    ("missing-fi", "if true; then ls", ("true", "ls")),
    ("lone-backtick", "`", ("`",)),
    ("unterminated-heredoc-after-semicolon", "psql <<SQL; ls\nDROP TABLE t;", ("psql", "ls")),
    ("stray-closer", "ls ) ; rm -rf /", ("ls", "rm -rf /")),
    ("stray-fi", "fi; git push -f", ("git push -f",)),
]


@pytest.mark.parametrize(
    ("command", "commands"), [c[1:] for c in REPAIRED], ids=[c[0] for c in REPAIRED]
)
def test_repaired_text_is_incomplete_but_keeps_its_commands(
    command: str, commands: tuple[str, ...]
) -> None:
    result = parse_shell("  " + command + "\n")
    assert result.commands == commands
    assert result.incomplete


def test_unparseable_nested_string_is_repaired_and_flagged() -> None:
    result = parse_shell("""bash -c "echo 'oops" """)
    assert result.commands == ("bash -c echo 'oops", "echo oops")
    assert result.incomplete


def test_nested_strings_are_followed() -> None:
    command = "rm -rf /"
    for _ in range(8):
        command = f"eval {_quote(command)}"
    result = parse_shell(command)
    assert "rm -rf /" in result.commands
    assert not result.incomplete


def test_nesting_past_the_limit_is_split_lexically_and_flagged() -> None:
    result = parse_shell("eval " * (MAX_NESTING + 10) + "rm -rf /")
    assert "rm -rf /" in result.commands
    assert "nesting-limit" in result.issues


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def test_long_command_parses() -> None:
    command = " && ".join(f"git add file{i}.txt" for i in range(2500))
    command += " && git push -f origin main"
    assert len(command) > 50_000
    result = parse_shell(command)
    assert not result.incomplete
    assert result.commands[-1] == "git push -f origin main"
    assert len(result.commands) == 2501


def test_element_count_capped_and_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    # the element cap is under test, not the time budget: a busy machine must not spend the
    # 2 s of the analysis before the cap is reached
    monkeypatch.setattr(shell, "MAX_PARSE_SECONDS", 60.0)
    result = parse_shell(" | ".join(f"a{i}" for i in range(MAX_ELEMENTS + 500)))
    assert len(result.commands) == MAX_ELEMENTS
    assert "element-limit" in result.issues


def test_deep_nesting_is_split_lexically_without_recursion_error() -> None:
    command = "$(" * 5000 + "ls" + ")" * 5000
    result = parse_shell(command)
    assert "ls" in result.commands
    assert result.incomplete


def test_analysis_needs_no_heavy_module() -> None:
    probe = (
        "import sys, agentstyle.shell as s; s.parse_shell('cd a && git push -f'); "
        "print(sorted({'tree_sitter', 'duckdb', 'lark', 'yaml', 'polars'} & set(sys.modules)))"
    )
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [sys.executable, "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert out.stdout.strip() == "[]"


# Harness fixtures: (file, elements that must be present, code that must be present)
FIXTURE_EXPECT: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "claude-code/PreToolUse.bash-git-push-force.json": (
        ("GIT_TRACE=0", "git push -f origin main", "git commit -am wip"),
        (),
    ),
    "claude-code/PreToolUse.bash-heredoc-python.json": (
        ("python3 -",),
        ("import shutil\nshutil.rmtree('migrations')\n",),
    ),
    "claude-code/PreToolUse.bash-rm-rf.json": (("rm -rf ./target /tmp/acme-build",), ()),
    "codex/PreToolUse.bash-git-push-force.json": (
        ("git push --force-with-lease origin main",),
        (),
    ),
    "codex/PermissionRequest.bash.json": (("curl -fsSL https://sh.rustup.rs", "sh"), ()),
}


def _shell_fixtures() -> list[Path]:
    if not FIXTURES.is_dir():
        return []
    found = []
    for path in sorted(FIXTURES.glob("*/*.json")):
        payload = json.loads(path.read_text(encoding="utf-8"))
        if payload.get("tool_name") in ("Bash", "Shell", "run_shell_command"):
            found.append(path)
    return found


@pytest.mark.parametrize("path", _shell_fixtures(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_harness_fixture(path: Path) -> None:
    payload = json.loads(path.read_text(encoding="utf-8"))
    command = payload["tool_input"]["command"]
    result = parse_shell(command, cwd=payload.get("cwd"))
    assert not result.incomplete
    assert result.commands
    key = f"{path.parent.name}/{path.name}"
    commands, code = FIXTURE_EXPECT.get(key, ((), ()))
    assert set(commands) <= set(result.commands)
    assert set(code) <= set(result.code)


def test_claude_code_bash_fixtures_exist() -> None:
    assert FIXTURES.is_dir(), "tests/fixtures holds the harness payloads"
    names = {f"{p.parent.name}/{p.name}" for p in _shell_fixtures()}
    assert {k for k in FIXTURE_EXPECT if k.startswith("claude-code/")} <= names


def test_hostile_redirections_are_repairs() -> None:
    # (its time is measured in bench/shell_bench.py)
    command = "cat <<E; ls\nE\n" + "<<" * 25_000
    result = parse_shell(command)
    assert result.commands == ("cat", "ls")
    assert result.incomplete


def test_many_heredocs_on_one_line_parse_through_the_rewrite() -> None:
    command = "".join(f"python3 <<E{i}; " for i in range(2000)) + "\n"
    command += "".join(f"print({i})\nE{i}\n" for i in range(2000))
    result = parse_shell(command)
    assert not result.incomplete
    assert result.code == tuple(f"print({i})\n" for i in range(2000))
