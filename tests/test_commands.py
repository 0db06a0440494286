"""The command model (docs/design/commands.md): a command's words read the way its program reads
them, and its paths resolved the way the kernel would, with where each lands."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from agentstyle.commands.argv import read_words
from agentstyle.commands.catalog import shipped, shipped_grammar
from agentstyle.commands.grammar import GrammarProblem, from_data, parse_option
from agentstyle.commands.model import Command, build
from agentstyle.engine.commandrows import place_tags
from agentstyle.shell import parse_shell


def read(line: str) -> tuple[list[str], list[tuple[str, str | None]], list[tuple[str, str]]]:
    program, *args = line.split()
    parsed = read_words(program, args, shipped_grammar(program))
    return parsed.heads, parsed.options, parsed.operands


def model(command: str, cwd: Path) -> list[Command]:
    return build(parse_shell(command, str(cwd)).runs, os.path.realpath(cwd), shipped_grammar)


def places(command: Command) -> list[tuple[str, str, list[str]]]:
    """(text, role, the places that hold) of each path."""
    return [
        (use.place.text, use.role, sorted(t for t in place_tags(use.place.tags) if ":" in t))
        for use in command.paths
    ]


def the(commands: list[Command], program: str) -> Command:
    [found] = [c for c in commands if c.program == program]
    return found


# -- every shipped grammar reads ----------------------------------------------------------------


def test_every_shipped_grammar_builds() -> None:
    assert len(shipped()) > 50
    for program in shipped():
        grammar = shipped_grammar(program)
        assert grammar is not None and grammar.root.words == (program,)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("force", "does not start with an option name"),
        ("--force <x> y", "cannot read the value"),
        ("-f, --force: bogus", ""),
    ],
)
def test_a_grammar_that_does_not_read_says_where(spec: str, problem: str) -> None:
    name, _, attrs = spec.partition(": ")
    with pytest.raises(GrammarProblem, match=problem or "unknown attribute"):
        parse_option(name, attrs or None, "prog")


def test_an_option_without_a_value_has_no_role() -> None:
    with pytest.raises(GrammarProblem, match="takes no value"):
        from_data("p", "f", {"options": {"-f, --force": "writes"}})


# -- reading words -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    ["rm -rf x", "rm -r -f x", "rm --recursive --force x", "rm x -fr", "rm --rec --for x"],
)
def test_every_spelling_of_an_option_is_one(line: str) -> None:
    _heads, options, operands = read(line)
    assert options == [("--recursive", None), ("--force", None)] or sorted(options) == [
        ("--force", None),
        ("--recursive", None),
    ]
    assert operands == [("x", "deletes")]


def test_after_double_dash_an_option_is_an_operand() -> None:
    _heads, options, operands = read("rm -f -- -rf")
    assert options == [("--force", None)]
    assert operands == [("-rf", "deletes")]


def test_double_dash_before_a_subcommand_ends_only_the_options_before_it() -> None:
    heads, options, operands = read("systemctl --no-block -- reboot --force")
    assert heads[-1] == "systemctl reboot" and ("--force", None) in options and operands == []
    assert read("systemctl -- status -- reboot")[0][-1] == "systemctl status"


def test_git_global_options_and_subcommands() -> None:
    heads, options, operands = read("git -C sub --no-pager clean -nfdx build")
    assert heads == ["git", "git clean"]
    assert options == [
        ("-C", "sub"),
        ("--no-pager", None),
        ("--dry-run", None),
        ("--force", None),
        ("-d", None),
        ("-x", None),
    ]
    assert operands == [("build", "deletes")]


def test_a_unique_prefix_is_its_option_and_an_ambiguous_one_every_option_it_may_mean() -> None:
    assert read("git clean --forc")[1] == [("--force", None)]
    ambiguous = {name for name, _v in read("git push --forc origin main")[1]}
    assert ambiguous == {"--force", "--force-with-lease", "--force-if-includes"}
    # docker (pflag) takes no abbreviation: the word stays as written
    assert read("kubectl --cont prod apply")[1][0] == ("--cont", None)


@pytest.mark.parametrize(
    "line", ["sort -o out.txt in.txt", "sort -oout.txt in.txt", "sort --output=out.txt in.txt"]
)
def test_a_value_attached_or_in_the_next_word(line: str) -> None:
    program, *args = line.split()
    parsed = read_words(program, args, shipped_grammar(program))
    assert parsed.options == [("--output", "out.txt")]
    assert parsed.option_values == [("--output", "out.txt", "writes")]
    assert parsed.operands == [("in.txt", "reads")]


def test_persistent_options_stand_after_the_subcommand() -> None:
    for line in ("kubectl --context prod delete ns web", "kubectl delete ns web --context=prod"):
        heads, options, operands = read(line)
        assert heads == ["kubectl", "kubectl delete"]
        assert ("--context", "prod") in options
        assert [w for w, _r in operands] == ["ns", "web"]


def test_keyword_operands_and_positional_roles() -> None:
    _h, options, _o = read("dd if=/dev/zero of=/dev/sda bs=1M")
    assert options == [("if", "/dev/zero"), ("of", "/dev/sda"), ("bs", "1M")]
    assert read("cp a b dest")[2] == [("a", "reads"), ("b", "reads"), ("dest", "writes")]
    assert read("mv -t dest a b")[2] == [("a", "deletes"), ("b", "deletes")]


def test_find_takes_the_words_of_exec_up_to_its_terminator() -> None:
    _h, options, operands = read("find . /srv -name *.o -exec rm -f {} ; -delete")
    assert options == [("-name", "*.o"), ("-exec", "rm -f {}"), ("-delete", None)]
    assert operands == [(".", "path"), ("/srv", "path")]


def test_an_option_may_take_words_after_its_value() -> None:
    _h, options, operands = read("find . -fprintf out -delete -print")
    assert options == [("-fprintf", "out"), ("-print", None)]  # -delete is the format
    assert operands == [(".", "path")]
    assert parse_option("-fprintf <file> <format>", "writes", "x").extra == 1


def test_without_a_grammar_both_readings_stand() -> None:
    parsed = read_words("deploy.sh", ["--env", "prod", "-xv", "eu"], None)
    assert parsed.grammar is None
    assert parsed.heads == ["deploy.sh", "deploy.sh prod", "deploy.sh prod eu"]
    assert ("--env", "prod") in parsed.options  # the word after an option may be its value
    assert ("prod", "path") in parsed.operands  # … and an operand
    assert {("-x", None), ("-v", None), ("-xv", "eu")} <= set(parsed.options)


# -- paths and places -----------------------------------------------------------------------------


def test_paths_land_where_the_command_runs(tmp_path: Path) -> None:
    proj = tmp_path / "work" / "proj"
    (proj / "build").mkdir(parents=True)
    rm = the(model("cd build && rm -rf ../out ../../x /etc ~/notes $HOME/y ../.git", proj), "rm")
    tags = {text: p for text, role, p in places(rm) if role == "deletes"}
    real = os.path.realpath(proj)
    assert "inside:project" in tags[f"{real}/out"]
    assert "outside:project" in tags[os.path.dirname(real) + "/x"]
    assert "is:system" in tags["/etc"]
    home = os.path.expanduser("~")
    assert "inside:home" in tags[home + "/notes"] and "inside:home" in tags[home + "/y"]
    assert "is:git" in tags[f"{real}/.git"]


def test_every_entry_of_a_folder_is_judged_as_the_folder(tmp_path: Path) -> None:
    rm = the(model("rm -rf /var/tmp/* ~/.* /etc/{*,.*}", tmp_path / "p"), "rm")
    tags = {text: p for text, _r, p in places(rm)}
    assert "is:tmp" in tags["/var/tmp/*"]
    assert "is:system" in tags["/etc/*"] and "is:system" in tags["/etc/.*"]
    assert "is:home" in tags[os.path.expanduser("~") + "/.*"]


def test_a_glob_that_may_match_dot_git_lands_on_it(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    proj.mkdir()
    git = os.path.realpath(proj) + "/.git"
    for word in (".*", ".[!.]*", ".[^.]*", ".g*", "./.??*"):
        tags = {t: p for t, _r, p in places(the(model(f"rm -rf {word}", proj), "rm"))}
        assert "is:git" in tags[git], word
    for word in ("*", "..?*", ".c*", "src/.*"):
        tags = {t: p for t, _r, p in places(the(model(f"rm -rf {word}", proj), "rm"))}
        assert not any("is:git" in p for p in tags.values()), word


def test_a_symbolic_link_on_disk_and_one_the_line_makes(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (proj / "out").symlink_to(tmp_path / "elsewhere")
    rm = the(model("rm -rf out/", proj), "rm")
    assert any("outside:project" in p for _t, _r, p in places(rm))
    made = [c for c in model("ln -s / r && rm -rf r/", proj) if c.program == "rm"]
    assert any("is:root" in p for c in made for _t, _r, p in places(c))


def test_dot_dot_after_a_link_leaves_where_the_link_leads(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (tmp_path / "elsewhere" / "deep").mkdir(parents=True)
    (proj / "linked").symlink_to(tmp_path / "elsewhere" / "deep")
    out = os.path.realpath(tmp_path / "elsewhere") + "/dist"
    for line in ("cd linked && rm -rf ../dist", "rm -rf linked/../dist"):
        tags = {t: p for t, _r, p in places(the(model(line, proj), "rm"))}
        assert "outside:project" in tags[out], line
        assert "inside:project" in tags[os.path.realpath(proj) + "/dist"]  # as written


def test_the_shell_opens_redirections_whatever_runs(tmp_path: Path) -> None:
    [bare] = model("> /dev/sda", tmp_path)
    [(text, role, tags)] = places(bare)
    assert bare.heads == [] and (text, role) == ("/dev/sda", "writes")
    assert "inside:system" in tags
    idle, opened = model("ls --help > /dev/sda", tmp_path)
    assert idle.does_nothing and opened.heads == [] and not opened.does_nothing
    assert [t for t, _r, _p in places(opened)] == ["/dev/sda"]
    assert len(model("ls > out.txt", tmp_path)) == 1  # a command that runs keeps its own


def test_run_time_words_are_in_no_place(tmp_path: Path) -> None:
    rm = the(model('rm -rf "$BUILD_DIR" $(cat list)', tmp_path), "rm")
    for _text, _role, tags in places(rm):
        assert "is:unknown" in tags and "outside:project" in tags and "outside:tmp" in tags
    xargs_rm = [c for c in model("cat list | xargs rm -rf", tmp_path) if c.program == "rm"]
    assert any("is:unknown" in p for c in xargs_rm for _t, _r, p in places(c))


def test_a_project_under_tmp_keeps_its_neighbours() -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as entry:
        proj = Path(entry) / "ws" / "app"
        proj.mkdir(parents=True)
        line = f"rm -rf .. ../other ../../beside {entry}-scratch /tmp/x"
        tags = {t: p for t, _r, p in places(the(model(line, proj), "rm"))}
        real = os.path.realpath(entry)
        assert "inside:tmp" not in tags[real + "/ws"]  # holds the project
        assert "inside:tmp" not in tags[real + "/ws/other"]  # beside it
        assert "inside:tmp" not in tags[real + "/beside"]  # in the temp entry that holds it
        assert "inside:tmp" in tags[real + "-scratch"] and "inside:tmp" in tags["/tmp/x"]


def test_a_command_on_another_machine_is_read_from_its_home(tmp_path: Path) -> None:
    rm = the(model("ssh host 'rm -rf ./build /var/x'", tmp_path), "rm")
    assert rm.remote
    tags = {t: p for t, _r, p in places(rm)}
    assert "inside:remote" in tags["~/build"] and "inside:home" in tags["~/build"]
    assert "outside:project" in tags["/var/x"]


# -- the model ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "/usr/bin/git clean -f",
        "env GIT_DIR=x git clean -f",
        "sudo -u deploy git clean -f",
        "command git clean -f",
        "bash -c 'git clean -f'",
        "GIT -C x clean -f",
    ],
)
def test_the_program_after_wrappers(line: str, tmp_path: Path) -> None:
    clean = [c for c in model(line, tmp_path) if c.heads[-1] == "git clean"]
    assert clean and ("--force", None) in clean[0].options


def test_a_script_a_shell_runs_is_a_command_of_its_own(tmp_path: Path) -> None:
    found = [c for c in model("bash ./scripts/deploy.sh prod", tmp_path) if c.grammar is None]
    assert [c.heads for c in found] == [["deploy.sh", "deploy.sh prod"]]
