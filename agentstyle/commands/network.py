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


@dataclass(frozen=True, slots=True)
class SocatAddress:
    """What one socat address is: an end on the network, a program it runs with its stdio on
    the other address (`EXEC:cmd`, `SYSTEM:cmd`, `SHELL`), or a file it reads or writes
    (`OPEN:f`, `CREATE:f`)."""

    end: Endpoint | None = None
    program: str | None = None
    reads: str | None = None
    writes: str | None = None
    fd: str | None = None  # `FD:3`: a descriptor the line opened


# socat's address types by what they do; UNIX-*, ABSTRACT-*, PIPE, PTY, STDIO stay local
_SOCAT_RELAYED = ("PROXY", "PROXY-CONNECT", "SOCKS4", "SOCKS4A", "SOCKS5", "SOCKS5-CONNECT")
_SOCAT_NETWORK = ("TCP", "UDP", "SCTP", "DCCP", "OPENSSL", "SSL", "VSOCK", "UDPLITE", "IP")


def from_socat(address: str) -> SocatAddress:
    """One socat address (its type is read case-insensitively, as socat does)."""
    kind, _, rest = address.partition(":")
    kind = kind.upper().split(",")[0]
    fields = rest.split(",")[0].split(":")
    base = kind.split("-")[0].rstrip("46")
    if kind in ("EXEC", "SYSTEM", "SHELL"):
        return SocatAddress(program=rest.split(",")[0] or "sh")
    if kind in ("OPEN", "GOPEN", "FILE", "READLINE"):
        return SocatAddress(reads=_unquoted(fields[0])) if fields[0] else SocatAddress()
    if kind == "FD" and fields[0].isdigit():
        return SocatAddress(fd=fields[0])
    if kind == "CREATE":
        return SocatAddress(writes=_unquoted(fields[0])) if fields[0] else SocatAddress()
    if kind in _SOCAT_RELAYED:  # PROXY:proxy:host:port, SOCKS4:socks:host:port
        return SocatAddress(Endpoint("connect", _field(fields, 1), _field(fields, 2)))
    if base not in _SOCAT_NETWORK:
        return SocatAddress()
    if kind.endswith(("-LISTEN", "-RECVFROM", "-RECV")):
        return SocatAddress(Endpoint("listen", "", _field(fields, 0)))
    return SocatAddress(Endpoint("connect", _field(fields, 0), _field(fields, 1)))


def _field(fields: list[str], k: int) -> str:
    return fields[k] if len(fields) > k else ""


def _unquoted(text: str) -> str:
    return text[1:-1] if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'" else text
