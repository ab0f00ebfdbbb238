"""A workshop hub's accounts and the checks it makes before it starts.

The class's roster is a text file the teacher writes: one student's account name a
line (``#`` starts a comment). Every name becomes a system account of its own, made
once before the class, as root::

    python classroom/hub_setup.py accounts roster.txt --admin teacher

(``useradd --create-home --user-group --shell /bin/bash`` for each name not yet an
account, no password, so no SSH login; its home then ``chmod 700``). The hub
(``jupyterhub_config.py``) reads the same file and refuses to start, saying what to
change, when a name is not an account, is root's (uid 0), or has a home other
users can enter; when its state folder is shared or inside the repository; or when
it would listen beyond this machine without TLS.

>>> parse_roster("alice\\n# the back row\\nbob  # late\\n\\n")
['alice', 'bob']
>>> parse_roster("Alice\\n")
Traceback (most recent call last):
...
ValueError: roster line 1: 'Alice' is not an account name: lower-case letters, ...
>>> parse_roster("alice\\nalice\\n")
Traceback (most recent call last):
...
ValueError: roster line 2: 'alice' is there twice
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import pwd
import re
import stat
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

#: What useradd (Debian's NAME_REGEX) and JupyterHub both accept, and nothing that
#: JupyterHub would change (it lower-cases names at login).
NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")


def parse_roster(text: str) -> list[str]:
    """The account names of a roster's text, in order."""
    names: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        if not NAME.fullmatch(name):
            raise ValueError(
                f"roster line {number}: {name!r} is not an account name: lower-case letters, "
                "digits, '_' and '-', starting with a letter or '_', at most 32 characters"
            )
        if name in names:
            raise ValueError(f"roster line {number}: {name!r} is there twice")
        names.append(name)
    return names


def read_roster(path: str) -> list[str]:
    """The names in the roster file ``path``; ValueError saying what to fix."""
    if not path:
        raise ValueError(
            "set RETRYLAB_HUB_ROSTER to the class's roster: a file with one "
            "student's account name a line (classroom/README.md)"
        )
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise ValueError(f"cannot read the roster RETRYLAB_HUB_ROSTER={path}: {e}") from e
    names = parse_roster(text)
    if not names:
        raise ValueError(f"the roster {path} names nobody: one account name a line")
    return names


def check_account(
    name: str,
    getpwnam: Callable[[str], pwd.struct_passwd] = pwd.getpwnam,
) -> pwd.struct_passwd:
    """The account ``name`` as the hub will run its server: its own uid, not root's,
    and a home no other user can enter.

    ValueError saying what to change otherwise.
    """
    try:
        entry = getpwnam(name)
    except KeyError:
        raise ValueError(
            f"{name!r} has no system account: run `python classroom/hub_setup.py accounts "
            "ROSTER --admin TEACHER` as root first (it makes one per name)"
        ) from None
    if entry.pw_uid == 0:
        raise ValueError(
            f"{name!r} is uid 0 (root): a student's server, kernels and "
            "terminals would run as root; take the name off the roster"
        )
    try:
        mode = os.stat(entry.pw_dir).st_mode
    except OSError as e:
        raise ValueError(
            f"{name!r}'s home {entry.pw_dir} is missing ({e}): run "
            "classroom/hub_setup.py accounts again"
        ) from e
    if mode & 0o077:
        raise ValueError(
            f"{name!r}'s home {entry.pw_dir} is open to other users "
            f"(mode {stat.filemode(mode)}): chmod 700 {entry.pw_dir}"
        )
    return entry


def check_accounts(
    names: list[str], getpwnam: Callable[[str], pwd.struct_passwd] = pwd.getpwnam
) -> None:
    """check_account for every name, a root one (uid 0) refused before anything else."""
    for name in names:
        try:
            if getpwnam(name).pw_uid == 0:
                check_account(name, getpwnam)
        except KeyError:
            pass
    for name in names:
        check_account(name, getpwnam)


def check_state_dir(path: Path, repository: Path, euid: int) -> None:
    """Create ``path`` (the hub's secrets and database) private to ``euid``, or check it is.

    ValueError saying what to change when it is inside the repository, shared or
    someone else's.
    """
    path = path.resolve()
    repository = repository.resolve()
    if path == repository or repository in path.parents:
        raise ValueError(
            f"the hub's state folder {path} is inside the repository: set "
            "RETRYLAB_HUB_STATE to a folder outside it (default "
            "/var/lib/retrylab-hub)"
        )
    if not path.exists():
        path.mkdir(parents=True, mode=0o700)
    info = path.stat()
    if info.st_uid != euid:
        raise ValueError(
            f"the hub's state folder {path} belongs to uid {info.st_uid}, not "
            f"to the hub's user (uid {euid}): chown it or choose another"
        )
    if info.st_mode & 0o077:
        raise ValueError(
            f"the hub's state folder {path} is open to other users (mode "
            f"{stat.filemode(info.st_mode)}): chmod 700 {path}"
        )


def closed_folders(paths: Iterable[Path]) -> list[Path]:
    """The folders on the way to ``paths`` that other accounts cannot enter (no o+x)."""
    closed: list[Path] = []
    for path in paths:
        for folder in [path, *path.parents]:
            if (
                folder.is_dir()
                and not folder.stat().st_mode & stat.S_IXOTH
                and folder not in closed
            ):
                closed.append(folder)
    return closed


def check_reachable(paths: Iterable[Path]) -> None:
    """Refuse a Python or a checkout the students' servers could not run or read.

    >>> check_reachable([Path("/usr/bin")])
    """
    closed = closed_folders(paths)
    if closed:
        raise ValueError(
            f"the students' servers could not run the hub's Python or read its checkout: "
            f"{', '.join(map(str, closed))} {'is' if len(closed) == 1 else 'are'} closed to "
            "other accounts: install the venv and the checkout where every account can "
            "read them (e.g. /opt/retrylab-hub, /opt/retrylab: classroom/README.md, "
            f"step 1), or chmod o+x {' '.join(map(str, closed))}"
        )


@contextlib.contextmanager
def searchable(paths: Iterable[Path]) -> Iterator[None]:
    """The folders on the way to ``paths`` enterable by all (o+x) for a while, then as
    they were: for the tests and the benchmark, whose venv is wherever CI put it (a
    pyenv Python under /root, say)."""
    changed = {folder: stat.S_IMODE(folder.stat().st_mode) for folder in closed_folders(paths)}
    for folder, mode in changed.items():
        folder.chmod(mode | stat.S_IXOTH)
    try:
        yield
    finally:
        for folder, mode in changed.items():
            folder.chmod(mode)


def is_loopback(ip: str) -> bool:
    """Whether the hub bound to ``ip`` is reachable from this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("localhost")
    (True, True, True)
    >>> is_loopback(""), is_loopback("0.0.0.0"), is_loopback("192.0.2.7")
    (False, False, False)
    """
    if ip == "localhost":
        return True
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False  # "" (every interface) or a host name


def check_bind(ip: str, ssl_cert: str, ssl_key: str, tls_proxy: bool) -> None:
    """Refuse plain HTTP beyond this machine unless a reverse proxy terminates TLS.

    >>> check_bind("127.0.0.1", "", "", False)
    >>> check_bind("0.0.0.0", "/etc/hub.crt", "/etc/hub.key", False)
    >>> check_bind("0.0.0.0", "", "", True)
    >>> check_bind("", "", "", False)
    Traceback (most recent call last):
    ...
    ValueError: RETRYLAB_HUB_IP='' (every interface) would send passwords over plain HTTP: ...
    """
    if bool(ssl_cert) != bool(ssl_key):
        raise ValueError("set both RETRYLAB_HUB_SSL_CERT and RETRYLAB_HUB_SSL_KEY, or neither")
    if is_loopback(ip) or ssl_cert or tls_proxy:
        return
    where = "every interface" if ip in ("", "0.0.0.0", "::") else "beyond this machine"
    raise ValueError(
        f"RETRYLAB_HUB_IP={ip!r} ({where}) would send passwords over plain HTTP: set "
        "RETRYLAB_HUB_SSL_CERT and RETRYLAB_HUB_SSL_KEY, or RETRYLAB_HUB_BEHIND_TLS_PROXY=1 "
        "if a reverse proxy in front of the hub terminates TLS (classroom/README.md)"
    )


def make_accounts(
    names: list[str],
    run: Callable[[list[str]], object] = print,
    getpwnam: Callable[[str], pwd.struct_passwd] = pwd.getpwnam,
) -> list[str]:
    """Make a system account for every name that has none; every home private (0700).

    ``run`` runs one command (a list); the names made are returned.
    """
    made = []
    for name in names:
        try:
            getpwnam(name)
        except KeyError:
            run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", name])
            made.append(name)
    for name in names:
        entry = getpwnam(name)
        if entry.pw_uid == 0:
            raise ValueError(f"{name!r} is uid 0 (root): take the name off the roster")
        os.chmod(entry.pw_dir, 0o700)
    return made


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    accounts = sub.add_parser("accounts", help="a private system account per rostered name")
    accounts.add_argument("roster", help="one student's account name a line")
    accounts.add_argument("--admin", required=True, help="the teacher's account name")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        parser.error("run it as root: it creates system accounts")
    try:
        names = read_roster(args.roster)
        (admin,) = parse_roster(args.admin)
        made = make_accounts(
            [*names, admin] if admin not in names else names,
            run=lambda cmd: subprocess.run(cmd, check=True),
        )
    except (ValueError, subprocess.CalledProcessError) as e:
        print(f"hub_setup: {e}", file=sys.stderr)
        return 1
    print(
        f"{len(made)} account(s) made ({', '.join(made) or 'none'}); "
        f"{len(names) + (admin not in names)} private home(s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
