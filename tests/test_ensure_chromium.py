"""scripts/ensure-chromium, what `make test` runs first: Chromium is installed from Debian's
packages when it is missing, and where that fails, one line says what failed and which tests
need the browser.

The script runs for real; only the package manager is a stand-in on PATH (an `apt-get` that
installs the browser, or fails as apt-get does; a `sudo` that runs its command), so nothing
is installed on the machine and no archive is reached.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "ensure-chromium"
SUDO = '#!/bin/sh\n[ "$1" = -n ] && shift\nexec "$@"\n'


def run(tmp_path: Path, apt_get: str) -> subprocess.CompletedProcess[str]:
    tools = tmp_path / "bin"
    tools.mkdir()
    for name, text in (("apt-get", apt_get), ("sudo", SUDO)):
        (tools / name).write_text(text, encoding="utf-8")
        (tools / name).chmod(0o755)
    env = dict(os.environ, PATH=f"{tools}:/usr/bin:/bin", CHROMIUM=str(tmp_path / "chromium"))
    return subprocess.run(
        ["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60
    )


def test_a_missing_browser_is_installed(tmp_path: Path) -> None:
    browser = tmp_path / "chromium"
    install = (
        '#!/bin/sh\ncase "$*" in *install*)\n'
        f'  printf "#!/bin/sh\\n" > {browser}; chmod +x {browser};;\nesac\n'
    )
    proc = run(tmp_path, install)
    assert proc.returncode == 0, proc.stderr
    assert browser.is_file()
    assert proc.stderr == (
        f"installing chromium from Debian's packages (tests/test_audit_html.py needs {browser})\n"
    )


def test_an_installed_browser_is_left_alone(tmp_path: Path) -> None:
    browser = tmp_path / "chromium"
    browser.write_text("#!/bin/sh\n", encoding="utf-8")
    browser.chmod(0o755)
    proc = run(tmp_path, "#!/bin/sh\necho apt-get ran >&2\nexit 1\n")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_a_failed_install_is_one_line_naming_the_tests(tmp_path: Path) -> None:
    failing = (
        "#!/bin/sh\necho 'Reading package lists...'\n"
        "echo 'E: Unable to locate package chromium' >&2\nexit 100\n"
    )
    proc = run(tmp_path, failing)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("installing chromium")
    assert lines[1:] == [
        "make test: cannot install chromium (`apt-get install -y chromium` failed: "
        "E: Unable to locate package chromium); "
        f"tests/test_audit_html.py needs {tmp_path / 'chromium'}"
    ]


def test_an_install_that_brings_no_browser_says_so(tmp_path: Path) -> None:
    proc = run(tmp_path, "#!/bin/sh\nexit 0\n")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == (
        f"make test: cannot install chromium (apt-get installed chromium but "
        f"{tmp_path / 'chromium'} is not there); "
        f"tests/test_audit_html.py needs {tmp_path / 'chromium'}"
    )
