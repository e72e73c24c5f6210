"""References stay fresh under a real daemon (another process, asked over its socket): a
caller edited — a call added, removed, renamed — changes the answer, and a daemon killed
with SIGKILL right after an edit loses no use once a daemon runs again."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

from symfind.daemon.client import request
from symfind.daemon.protocol import ReferencesReply, ReferencesRequest
from symfind.storage import ReferencesAnswer, ReferencesQuery, index_dir_for
from tests.integration.daemon_process import wait_gone, wait_idle
from tests.integration.test_cli import symfind

DEADLINE_S = 60.0

LIB = '''def greet(name):
    return "hello " + name


def wave(name):
    return "bye " + name
'''


def caller(*calls: str) -> str:
    body = "".join(f"    {call}(name)\n" for call in calls) or "    pass\n"
    return f"from lib import greet, wave\n\n\ndef main(name):\n{body}"


def make_repo(root: Path) -> Path:
    root.mkdir()
    (root / ".git").mkdir()
    (root / "lib.py").write_text(LIB, encoding="utf-8")
    (root / "app.py").write_text(caller("greet"), encoding="utf-8")
    return root.resolve()


@contextmanager
def daemon(repo: Path, env: dict[str, str]) -> Iterator[int]:
    started = symfind("daemon", "start", str(repo), "--json", env=env)
    assert started.returncode == 0, started.stderr
    pid = json.loads(started.stdout)["pid"]
    try:
        wait_idle(index_dir_for(repo))
        yield pid
    finally:
        if psutil.pid_exists(pid):
            symfind("daemon", "stop", str(repo), env=env)
        if psutil.pid_exists(pid):
            psutil.Process(pid).kill()


def uses(repo: Path, name: str) -> list[tuple[str, int, str]]:
    """The resolved uses of lib's `name`, asked of the daemon."""
    reply = request(index_dir_for(repo), ReferencesRequest(ReferencesQuery(
        target=name, path="lib.py", line=1 if name == "greet" else 5)), timeout_s=30)
    assert isinstance(reply, ReferencesReply), reply
    answer: ReferencesAnswer = reply.answer
    return [(group.path, site.line, site.reason) for group in answer.groups
            for site in group.sites]


def wait_for(repo: Path, name: str, expected: list[tuple[str, int, str]]) -> None:
    """Until the daemon's answer is `expected` (it indexes the edit in its own time)."""
    deadline = time.monotonic() + DEADLINE_S
    while (found := uses(repo, name)) != expected:
        assert time.monotonic() < deadline, f"{name}: still {found}, expected {expected}"
        time.sleep(0.05)  # another process: nothing to wait on but its answers


IMPORTED = ("app.py", 1, "imported from lib")


def test_editing_a_caller_changes_the_answer(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    env = {"SYMFIND_RUNTIME_DIR": str(tmp_path / "runtime")}
    with daemon(repo, env):
        assert uses(repo, "greet") == [IMPORTED, ("app.py", 5, "imported from lib")]
        (repo / "app.py").write_text(caller("greet", "greet"), encoding="utf-8")  # added
        wait_for(repo, "greet", [IMPORTED, ("app.py", 5, "imported from lib"),
                                 ("app.py", 6, "imported from lib")])
        (repo / "app.py").write_text(caller(), encoding="utf-8")  # removed
        wait_for(repo, "greet", [IMPORTED])
        (repo / "app.py").write_text(caller("wave"), encoding="utf-8")  # renamed
        wait_for(repo, "wave", [("app.py", 1, "imported from lib"),
                                ("app.py", 5, "imported from lib")])
        assert uses(repo, "greet") == [IMPORTED]
        # A script that defines nothing: its uses are kept with its file state.
        (repo / "run.py").write_text("from lib import greet\n\ngreet('you')\n",
                                     encoding="utf-8")
        wait_for(repo, "greet", [IMPORTED, ("run.py", 1, "imported from lib"),
                                 ("run.py", 3, "imported from lib")])
        (repo / "run.py").write_text("from lib import wave\n\nwave('you')\n", encoding="utf-8")
        wait_for(repo, "greet", [IMPORTED])


def test_a_daemon_killed_right_after_an_edit_loses_no_use(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    env = {"SYMFIND_RUNTIME_DIR": str(tmp_path / "runtime")}
    with daemon(repo, env) as pid:
        (repo / "app.py").write_text(caller("greet", "wave", "greet"), encoding="utf-8")
        os.kill(pid, signal.SIGKILL)
        wait_gone(pid)
    with daemon(repo, env):  # the next one catches up with what the killed one missed
        wait_for(repo, "greet", [IMPORTED, ("app.py", 5, "imported from lib"),
                                 ("app.py", 7, "imported from lib")])
        assert uses(repo, "wave") == [("app.py", 1, "imported from lib"),
                                      ("app.py", 6, "imported from lib")]
