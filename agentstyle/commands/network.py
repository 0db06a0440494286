"""Where a command reaches the network (docs/design/commands.md#effects).

From its grammar's roles: a `url` (`curl https://host:8443/x`: connect to host, port 8443; a
`file://` URL is a read of that file instead), a `host` (`ssh deploy@host`, `nc host 4444`), a
`port`, an `address` in socat's syntax (`TCP-LISTEN:4444`, `TCP:host:80`, `EXEC:/bin/sh`: a
program it runs with its stdio on the socket), an option marked `listen` (`nc -l`); and from a
redirection to bash's `/dev/tcp/HOST/PORT` or `/dev/udp/HOST/PORT`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

# Ports a URL's scheme implies when it names none.
_SCHEME_PORTS = {"http": 80, "https": 443, "ftp": 21, "ssh": 22, "sftp": 22, "git": 9418}
_DEV_NET = re.compile(r"^/dev/(tcp|udp)/([^/]+)/(\d+)$")
_SCP_HOST = re.compile(r"^(?:[^@/:\s]+@)?(\[[^\]]+\]|[^/:\s]+):")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One end of a connection a command makes or takes."""

    kind: str  # connect | listen
    host: str  # "" when not known (a listening socket, a URL made at run time)
    port: str  # "" when not known


def from_url(value: str) -> tuple[Endpoint | None, str | None]:
    """(the endpoint, a local file it reads) of a URL operand: `file:///x` reads /x."""
    if value[:7].lower() == "file://":
        # `file:///etc/passwd`, `file://localhost/x`, `file://$HOME/.aws/credentials`
        rest = value[7:]
        rest = rest[len("localhost") :] if rest.startswith("localhost/") else rest
        return None, rest or None
    parts = urlsplit(value if "://" in value else "http://" + value)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    host = parts.hostname or ""
    default = _SCHEME_PORTS.get(scheme)
    shown = str(port) if port is not None else str(default) if default is not None else ""
    return Endpoint("connect", host, shown), None


def from_host(value: str) -> Endpoint:
    """`user@host`, `host:path` (scp, rsync), `[::1]`: the host connected to."""
    m = _SCP_HOST.match(value + ":") if ":" not in value else _SCP_HOST.match(value)
    host = m.group(1) if m else value
    return Endpoint("connect", host.split("@")[-1].strip("[]"), "")


def remote_path(value: str) -> bool:
    """`host:path` or `user@host:path` (scp, rsync): a path on another machine."""
    return bool(_SCP_HOST.match(value)) and not value.startswith(("/", "./", "../", "~"))


def from_redirection(target: str) -> Endpoint | None:
    """bash's `/dev/tcp/HOST/PORT` (and udp): the shell opens a socket to HOST:PORT."""
    m = _DEV_NET.match(target)
    return Endpoint("connect", m.group(2), m.group(3)) if m else None


def from_socat(address: str) -> tuple[Endpoint | None, str | None]:
    """(the endpoint, a program it runs on the socket) of one socat address."""
    kind, _, rest = address.partition(":")
    kind = kind.upper().split(",")[0]
    fields = rest.split(",")[0].split(":")
    if kind in ("TCP-LISTEN", "TCP4-LISTEN", "TCP6-LISTEN", "UDP-LISTEN", "SCTP-LISTEN"):
        return Endpoint("listen", "", fields[0] if fields else ""), None
    if kind in ("TCP", "TCP4", "TCP6", "UDP", "UDP4", "UDP6", "SCTP", "OPENSSL", "SSL"):
        host = fields[0] if fields else ""
        port = fields[1] if len(fields) > 1 else ""
        return Endpoint("connect", host, port), None
    if kind in ("EXEC", "SYSTEM"):
        return None, rest.split(",")[0]
    return None, None
