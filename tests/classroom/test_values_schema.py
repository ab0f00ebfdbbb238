"""classroom/values.yaml for Zero to JupyterHub: valid for the chart it pins, and closed
until the teacher fills in who may log in and where HTTPS is served.

The chart's published schema and defaults (4.4.0) are vendored in tests/data/z2jh-4.4.0/
(README there: source, commit, license).
"""

from __future__ import annotations

import copy
import os
import re
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")
jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "tests" / "data" / "z2jh-4.4.0"
VALUES = ROOT / "classroom" / "values.yaml"


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def merged(base: Any, over: Any) -> Any:
    """Helm's merge of a user's values over the chart's defaults (maps merged, the
    rest replaced; a null deletes the key)."""
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            if value is None:
                out.pop(key, None)
            else:
                out[key] = merged(base.get(key), value)
        return out
    return copy.deepcopy(over)


def validate(values: Any) -> None:
    jsonschema.validate(
        merged(load(CHART / "values.yaml"), values), load(CHART / "values.schema.yaml")
    )


def test_the_values_are_valid_for_the_pinned_chart() -> None:
    values = load(VALUES)
    validate(values)
    assert "--version 4.4.0" in VALUES.read_text()  # the schema's chart version


def test_the_schema_check_means_something() -> None:
    """A misspelt key or a wrong type fails it (additionalProperties: false)."""
    values = load(VALUES)
    bad = merged(values, {"singleuser": {"lifecycleHook": {}}})
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)
    with pytest.raises(jsonschema.ValidationError):
        validate(merged(values, {"cull": {"timeout": "thirty minutes"}}))


def test_nothing_in_the_file_lets_anyone_in() -> None:
    text = VALUES.read_text()
    values = load(VALUES)
    config = values["hub"]["config"]
    assert not [
        key
        for section in config.values()
        for key in section
        if "password" in key and key != "min_password_length"
    ]
    assert not re.search(r"password\s*:", text.replace("min_password_length:", ""))
    assert config["Authenticator"]["allow_all"] is False
    assert config["Authenticator"]["allowed_users"] == []
    assert config["Authenticator"]["admin_users"] == []
    assert config["JupyterHub"]["authenticator_class"] == (
        "firstuseauthenticator.FirstUseAuthenticator"
    )
    assert "shared-password" not in text and "allow_all: true" not in text
    assert values["proxy"]["https"]["enabled"] is True


def fail_closed(values: Any) -> str:
    """What the hub's extraConfig says at start with these values ("" = it starts)."""
    chart = merged(load(CHART / "values.yaml"), values)

    def get_config(key: str, default: Any = None) -> Any:  # z2jh's, on the merged values
        node = chart
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    try:
        exec(values["hub"]["extraConfig"]["retrylab-fail-closed"], {"get_config": get_config})
    except SystemExit as e:
        return str(e)
    return ""


def test_the_hub_refuses_to_start_until_the_teacher_fills_it_in() -> None:
    values = load(VALUES)
    said = fail_closed(values)
    for what in ("allowed_users (the roster)", "admin_users (the teacher)", "proxy.https.hosts"):
        assert what in said, said
    filled = merged(
        values,
        {
            "hub": {
                "config": {
                    "Authenticator": {"allowed_users": ["alice", "bob"], "admin_users": ["teacher"]}
                }
            },
            "proxy": {"https": {"hosts": ["hub.example.org"]}},
        },
    )
    validate(filled)
    assert fail_closed(filled) == (
        "retrylab hub: not starting: set proxy.https.letsencrypt.contactEmail"
    )
    done = merged(
        filled, {"proxy": {"https": {"letsencrypt": {"contactEmail": "teacher@example.org"}}}}
    )
    validate(done)
    assert fail_closed(done) == ""
    behind_a_proxy = merged(
        filled,
        {
            "proxy": {"https": {"enabled": False}},
            "custom": {"retrylab": {"tlsTerminatedElsewhere": True}},
        },
    )
    validate(behind_a_proxy)
    assert fail_closed(behind_a_proxy) == ""


def test_the_image_is_pinned_and_installs_the_package_outside_the_home() -> None:
    values = load(VALUES)
    version = re.search(
        r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE
    )
    assert version and values["singleuser"]["image"]["tag"] == version.group(1)
    dockerfile = (ROOT / "classroom" / "Dockerfile").read_text()
    install = [line for line in dockerfile.splitlines() if "pip install" in line]
    assert install and not any(" -e " in line or "--editable" in line for line in install)
    steps = [line for line in dockerfile.splitlines() if not line.startswith("#")]
    assert not [s for s in steps if "/home/" in s]  # nothing under the home volume


def test_a_failed_pull_at_start_never_stops_the_pod(tmp_path: Path) -> None:
    """The postStart hook with a gitpuller that fails: exit 0, the failure logged."""
    command = load(VALUES)["singleuser"]["lifecycleHooks"]["postStart"]["exec"]["command"]
    assert command[:2] == ["sh", "-c"]
    assert "gitpuller https://github.com/retrylab/retrylab student retrylab" in command[2]
    fake = tmp_path / "bin" / "gitpuller"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'fatal: unable to access' >&2\nexit 128\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run(
        command,
        env={**os.environ, "HOME": str(home), "PATH": f"{fake.parent}:{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        cwd=home,
    )
    assert done.returncode == 0
    assert "gitpuller failed" in done.stderr
    assert "unable to access" in (home / ".retrylab-gitpuller.log").read_text()
