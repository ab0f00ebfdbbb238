"""The workshop hub's checks: what it refuses to start with, and the message saying why."""

from __future__ import annotations

import doctest
import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "classroom"))
import hub_setup  # noqa: E402

sys.path.remove(str(ROOT / "classroom"))


def test_the_docstring_examples() -> None:
    assert doctest.testmod(hub_setup, optionflags=doctest.ELLIPSIS).failed == 0


def entry(name: str, uid: int, home: Path) -> pwd.struct_passwd:
    return pwd.struct_passwd((name, "x", uid, uid, "", str(home), "/bin/bash"))


def test_an_account_must_exist_be_no_root_and_have_a_private_home(tmp_path: Path) -> None:
    home = tmp_path / "alice"
    home.mkdir(mode=0o700)
    home.chmod(0o700)
    accounts = {"alice": entry("alice", 1001, home), "admin": entry("admin", 0, home)}
    assert hub_setup.check_account("alice", accounts.__getitem__).pw_uid == 1001
    with pytest.raises(ValueError, match="uid 0"):
        hub_setup.check_account("admin", accounts.__getitem__)
    with pytest.raises(ValueError, match="no system account: run `python classroom/hub_se"):
        hub_setup.check_account("bob", accounts.__getitem__)
    home.chmod(0o755)
    with pytest.raises(ValueError, match=f"chmod 700 {home}"):
        hub_setup.check_account("alice", accounts.__getitem__)


def test_the_state_folder_is_private_outside_the_repository(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="inside the repository"):
        hub_setup.check_state_dir(ROOT / "hub-state", ROOT, os.geteuid())
    state = tmp_path / "new" / "state"
    hub_setup.check_state_dir(state, ROOT, os.geteuid())
    assert state.stat().st_mode & 0o777 == 0o700
    state.chmod(0o755)
    with pytest.raises(ValueError, match=f"chmod 700 {state}"):
        hub_setup.check_state_dir(state, ROOT, os.geteuid())
    state.chmod(0o700)
    with pytest.raises(ValueError, match="not to the hub's user"):
        hub_setup.check_state_dir(state, ROOT, os.geteuid() + 1)


def test_the_roster_file() -> None:
    with pytest.raises(ValueError, match="set RETRYLAB_HUB_ROSTER"):
        hub_setup.read_roster("")
    with pytest.raises(ValueError, match="cannot read the roster"):
        hub_setup.read_roster("/nonexistent/roster.txt")


def test_accounts_are_made_for_the_names_without_one(tmp_path: Path) -> None:
    homes = {n: tmp_path / n for n in ("alice", "bob")}
    for home in homes.values():
        home.mkdir(mode=0o755)
        home.chmod(0o755)
    made = {"alice"}
    ran: list[list[str]] = []

    def getpwnam(name: str) -> pwd.struct_passwd:
        if name not in made:
            raise KeyError(name)
        return entry(name, 1000 + len(name), homes[name])

    def run(cmd: list[str]) -> None:
        ran.append(cmd)
        made.add(cmd[-1])

    assert hub_setup.make_accounts(["alice", "bob"], run, getpwnam) == ["bob"]
    assert ran == [["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", "bob"]]
    assert all(h.stat().st_mode & 0o777 == 0o700 for h in homes.values())


def load_config(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Load the hub's config as ``jupyterhub -f`` would, in a process of its own."""
    code = (
        "from traitlets.config.loader import PyFileConfigLoader; "
        f"PyFileConfigLoader('jupyterhub_config.py', path={str(ROOT / 'classroom')!r})"
        ".load_config()"
    )
    base = {k: v for k, v in os.environ.items() if not k.startswith("RETRYLAB_")}
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**base, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


REFUSALS = [
    ({"RETRYLAB_HUB_PASSWORD": "the-old-class-password"}, "the shared class password is gone"),
    ({"RETRYLAB_HUB_IP": "0.0.0.0"}, "would send passwords over plain HTTP"),
    ({"RETRYLAB_HUB_IP": ""}, "(every interface)"),
    ({"RETRYLAB_HUB_SSL_CERT": "/etc/hub.crt"}, "set both RETRYLAB_HUB_SSL_CERT"),
    ({"RETRYLAB_HUB_STATE": str(ROOT / "hub-state")}, "inside the repository"),
    ({"RETRYLAB_HUB_ROSTER": ""}, "set RETRYLAB_HUB_ROSTER"),
    ({"RETRYLAB_HUB_ADMIN": ""}, "set RETRYLAB_HUB_ADMIN"),
    ({"ROSTER": "root\n"}, "'root' is uid 0 (root)"),
    ({"RETRYLAB_HUB_ADMIN": "root"}, "'root' is uid 0 (root)"),
    ({"ROSTER": "nosuchstudent\n"}, "'nosuchstudent' has no system account"),
]


@pytest.mark.parametrize(("env", "message"), REFUSALS, ids=[m for _, m in REFUSALS])
def test_the_hub_refuses_to_start_and_says_what_to_change(
    tmp_path: Path, env: dict[str, str], message: str
) -> None:
    roster = tmp_path / "roster.txt"
    roster.write_text(env.pop("ROSTER", "nosuchstudent\n"))
    base = {
        "RETRYLAB_HUB_ROSTER": str(roster),
        "RETRYLAB_HUB_ADMIN": "nosuchteacher",
        "RETRYLAB_HUB_STATE": str(tmp_path / "state"),
        "RETRYLAB_HUB_CACHE": str(tmp_path / "cache"),
    }
    done = load_config({**base, **env}, tmp_path)
    assert done.returncode != 0
    if os.geteuid() != 0:  # the first thing it checks
        message = "run the hub as root"
    assert "retrylab hub: not starting: " in done.stderr and message in done.stderr, done.stderr
    assert not (ROOT / "hub-state").exists()


def test_a_python_or_checkout_students_cannot_reach_is_refused(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    inner = closed / "venv" / "bin"
    inner.mkdir(parents=True)
    closed.chmod(0o700)
    with pytest.raises(ValueError, match=f"chmod o\\+x .*{closed}"):
        hub_setup.check_reachable([inner])
    with hub_setup.searchable([inner]):
        assert closed not in hub_setup.closed_folders([inner])
    assert closed.stat().st_mode & 0o777 == 0o700  # as it was
