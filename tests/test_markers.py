"""Marker blocks in instruction files: placing then removing gives the user's bytes back."""

from __future__ import annotations

import random

import pytest

from agentstyle.configfiles.markers import (
    MarkerError,
    is_empty_after_removal,
    place_blocks,
    read_blocks,
    remove_blocks,
)

BLOCKS: dict[str, dict[str, str]] = {
    "one": {"pkg/a": "Use tabs in Makefiles."},
    "two": {"pkg/a": "Use tabs in Makefiles.", "pkg/b": "Never force-push `main`.\n\n- really"},
    "three": {
        "pkg/a": "Use tabs in Makefiles.",
        "pkg/b": "Never force-push `main`.",
        "other/ü-rule": "Unicode ✓ body\nwith a trailing line break\n",
    },
    "empty-body": {"pkg/empty": ""},
}

SHAPES: dict[str, str | None] = {
    "no-file": None,
    "empty": "",
    "newline-only": "\n",
    "one-line-no-newline": "# Project",
    "one-line": "# Project\n",
    "trailing-blank-line": "# Project\n\nSome text.\n\n",
    "crlf": "# Project\r\n\r\nUse `make`.\r\n",
    "crlf-no-final": "# Project\r\n\r\nUse `make`.",
    "unicode": "# Projekt ✓\n\nÜmlaut, 日本語, emoji 😀.\n",
    "trailing-spaces": "text  \n   ",
    "front-matter": "---\ndescription: STYLE rules\nalwaysApply: true\n---\n",
    "html-comments": "<!-- keep me -->\ntext <!-- style:begin in the middle -->\n",
    "code-fence": "```md\n# heading\n```\n",
    "lone-cr": "old\rmac\r",
    "cr-before-end": "a\nb\r",
    "crlf-cr-before-end": "a\r\nb\r",
    "blank-lines-only": "\n\n\n",
}


@pytest.mark.parametrize("blocks_id", sorted(BLOCKS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_place_then_remove_gives_the_original(shape: str, blocks_id: str) -> None:
    user, blocks = SHAPES[shape], BLOCKS[blocks_id]
    placed = place_blocks(user, blocks)
    assert remove_blocks(placed) == (user or "")
    assert place_blocks(placed, blocks) == placed
    assert read_blocks(placed) == blocks
    assert is_empty_after_removal(placed) == (not user)
    if user:
        assert placed.startswith(user)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_changing_the_set_equals_a_fresh_placement(shape: str) -> None:
    user = SHAPES[shape]
    three = BLOCKS["three"]
    ids = list(three)
    for k in range(len(ids) + 1):
        prefix = {i: three[i] for i in ids[:k]}
        # Growing appends at the end; shrinking takes each block's own blank line with it.
        assert place_blocks(place_blocks(user, prefix), three) == place_blocks(user, three)
        assert place_blocks(place_blocks(user, three), prefix) == place_blocks(user, prefix)
    for drop in ids:
        rest = {i: b for i, b in three.items() if i != drop}
        assert place_blocks(place_blocks(user, three), rest) == place_blocks(user, rest)


def test_layout_of_appended_blocks() -> None:
    assert place_blocks(None, BLOCKS["two"]) == (
        "<!-- style:begin pkg/a -->\nUse tabs in Makefiles.\n<!-- style:end pkg/a -->\n\n"
        "<!-- style:begin pkg/b -->\nNever force-push `main`.\n\n- really\n"
        "<!-- style:end pkg/b -->\n"
    )
    assert place_blocks("# T\r\n", BLOCKS["one"]) == (
        "# T\r\n\r\n<!-- style:begin pkg/a -->\r\nUse tabs in Makefiles.\r\n"
        "<!-- style:end pkg/a -->\r\n"
    )
    # No final line break before: none after, and the blank line goes in front.
    assert place_blocks("# T", BLOCKS["one"]).endswith(
        "# T\n\n<!-- style:begin pkg/a -->\nUse tabs in Makefiles.\n<!-- style:end pkg/a -->"
    )


def test_blocks_are_replaced_in_place_and_user_text_around_them_kept() -> None:
    text = (
        "intro\n\n<!-- style:begin pkg/a -->\nold\n<!-- style:end pkg/a -->\n"
        "user text added after install\n"
    )
    placed = place_blocks(text, {"pkg/a": "new\nbody", "pkg/c": "c"})
    assert placed == (
        "intro\n\n<!-- style:begin pkg/a -->\nnew\nbody\n<!-- style:end pkg/a -->\n"
        "user text added after install\n\n<!-- style:begin pkg/c -->\nc\n<!-- style:end pkg/c -->\n"
    )
    assert remove_blocks(placed) == "intro\nuser text added after install\n"


def test_indented_markers_and_duplicates_are_understood() -> None:
    text = (
        "  <!-- style:begin pkg/a -->\nfirst\n  <!-- style:end pkg/a -->\n\n"
        "<!-- style:begin pkg/a -->\nsecond\n<!-- style:end pkg/a -->\n"
    )
    assert read_blocks(text) == {"pkg/a": "first"}
    assert place_blocks(text, {"pkg/a": "x"}) == (
        "<!-- style:begin pkg/a -->\nx\n<!-- style:end pkg/a -->\n"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "a\n<!-- style:begin pkg/a -->\nbody\n",
            "CLAUDE.md:2:1: `style:begin pkg/a` has no matching `style:end pkg/a`",
        ),
        ("a\n\n<!-- style:end pkg/a -->\n", "CLAUDE.md:3:1: `style:end pkg/a` without a matching"),
        (
            "<!-- style:begin pkg/a -->\n<!-- style:end pkg/b -->\n",
            "CLAUDE.md:2:1: `style:end pkg/b` closes `style:begin pkg/a` opened on line 1",
        ),
        (
            "<!-- style:begin pkg/a -->\nx\n<!-- style:begin pkg/b -->\n",
            "CLAUDE.md:3:1: `style:begin pkg/b` inside block `pkg/a` opened on line 1",
        ),
        (
            "x\r\n<!-- style:begin -->\r\n",
            "CLAUDE.md:2:1: malformed STYLE marker `<!-- style:begin -->`",
        ),
        ("<!-- style:start pkg/a -->", "CLAUDE.md:1:1: malformed STYLE marker"),
    ],
)
def test_broken_markers_are_refused_with_their_line(text: str, message: str) -> None:
    for call in (
        lambda: place_blocks(text, BLOCKS["one"], name="CLAUDE.md"),
        lambda: remove_blocks(text, name="CLAUDE.md"),
        lambda: read_blocks(text, name="CLAUDE.md"),
    ):
        with pytest.raises(MarkerError) as caught:
            call()
        assert str(caught.value).startswith(message)


def test_blocks_that_cannot_be_written_are_refused() -> None:
    with pytest.raises(MarkerError, match="reserved marker"):
        place_blocks("", {"pkg/a": "see <!-- style:end pkg/a --> here"})
    with pytest.raises(MarkerError, match="cannot be written"):
        place_blocks("", {"pkg a": "x"})
    with pytest.raises(MarkerError, match="cannot be written"):
        place_blocks("", {"a-->": "x"})


@pytest.mark.parametrize("seed", range(200))
def test_random_texts_and_install_sequences(seed: int) -> None:
    rng = random.Random(seed)
    newline = rng.choice(["\n", "\r\n"])
    pieces = ["", "", "# Title", "text ✓", "  indented", "\t", "<!-- note -->", "x\r"]
    user: str | None = newline.join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
    if rng.random() < 0.5:
        user = (user or "") + newline
    if rng.random() < 0.1:
        user = None
    pool = {
        f"pkg/r{i}": rng.choice(["one line", "two\nlines", "", "trail\n", "a\n\nb"])
        for i in range(5)
    }
    text = user
    wanted: dict[str, str] = {}
    for _ in range(rng.randint(1, 4)):
        wanted = {k: pool[k] for k in rng.sample(sorted(pool), rng.randint(0, 5))}
        text = place_blocks(text, wanted)
        assert read_blocks(text) == wanted
        assert place_blocks(text, wanted) == text
    assert remove_blocks(text or "") == (user or "")
