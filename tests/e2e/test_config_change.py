"""A settings change during a real Claude Code session that would switch STYLE's hooks off
is kept out of the session (`style/self-protect/config-change`), and `style audit` shows it.

The mock model API writes `.claude/settings.local.json` while the session runs (as a person or
another program would), then asks for a refused call: Claude Code fires `ConfigChange`, STYLE
answers `decision: block`, and the hooks still run, so the refusal holds.
"""

from __future__ import annotations

import json

from e2e.clients import Session
from e2e.mockapi import Request, Script, Turn
from e2e.scenarios import shell
from tests.support.packages import no_rm, package_text

NO_RM = package_text("e2e", no_rm("no rm"), description="refuses rm")
H = "claude-code"
RULE = "style/self-protect/config-change"


def changing(s: Session, settings: dict[str, object]) -> None:
    """The scripted model: the settings change as the first request comes in, a call that
    waits while Claude Code's watcher notices, then `rm`."""
    changed: list[bool] = []

    def pick(req: Request) -> Turn | None:
        if req.step == 0 and not changed:
            changed.append(True)
            local = s.project / ".claude" / "settings.local.json"
            local.write_text(json.dumps(settings))
        return None

    s.script.turns.extend([[shell(H, "sleep 5; echo waited")], [shell(H, "rm -f victim.txt")]])
    s.script.pick = pick


def fired(s: Session) -> int:
    """How often `style audit rules` says the config-change rule fired."""
    proc = s.style("audit", "rules", "--rule", RULE, "--format", "json")
    rows = [r for r in json.loads(proc.stdout)["rows"] if r["rule"] == RULE]
    return int(rows[0]["fired"]) if rows else 0


def test_switching_every_hook_off_midway_is_kept_out(session) -> None:
    s: Session = session(H, Script([]))
    s.install(NO_RM)
    changing(s, {"disableAllHooks": True})
    s.run("tidy up")
    assert (s.project / "victim.txt").exists(), "the hooks were switched off and rm ran"
    assert fired(s) == 1


def test_an_ordinary_settings_change_goes_through(session) -> None:
    s: Session = session(H, Script([]))
    s.install(NO_RM)
    changing(s, {"env": {"E2E_SETTING": "1"}})
    s.run("tidy up")
    assert (s.project / "victim.txt").exists(), "rm was not refused"
    assert fired(s) == 0
