"""``is_dead`` proves a worker's death only where it can: a process of this machine (same boot,
PID namespace and host name) whose pid is gone, exited, or now names another process. Other
machines, earlier releases' names and anything unreadable are "alive" (wait for expiry).

The names come from real processes: this one, and children that print their own name."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from memstrata._background import worker_id
from memstrata._liveness import is_dead

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="death is provable only from Linux's /proc")

PRINT_NAME = "from memstrata._background import worker_id; print(worker_id(), flush=True)"


def _fields(name: str) -> list[str]:
    """``host, pid, random, boot, pidns, start`` of a name of this release."""
    fields = name.rsplit(":", 5)
    assert len(fields) == 6, name
    return fields


def _with(name: str, **changes: str) -> str:
    keys = ["host", "pid", "rand", "boot", "ns", "start"]
    fields = dict(zip(keys, _fields(name), strict=True))
    fields.update(changes)
    return ":".join(fields[k] for k in keys)


def _exited_child_name() -> str:
    """The name a child process gave itself before it exited (and was reaped)."""
    done = subprocess.run([sys.executable, "-c", PRINT_NAME], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


def test_a_running_process_is_alive() -> None:
    mine = worker_id()
    host, pid, _, boot, _, start = _fields(mine)
    assert host == socket.gethostname() and pid == str(os.getpid())
    assert len(boot) == 32 and start.isdigit()
    assert not is_dead(mine)
    assert not is_dead(f"{mine}#12")  # a claim token: the name and a batch number
    assert worker_id() != mine  # unique per object, same process


def test_a_process_that_exited_is_dead() -> None:
    gone = _exited_child_name()
    assert _fields(gone)[1] != str(os.getpid())
    assert is_dead(gone)
    assert is_dead(f"{gone}#3")


def test_an_exited_process_not_yet_reaped_is_dead() -> None:
    child = subprocess.Popen([sys.executable, "-c", PRINT_NAME], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert child.stdout is not None
        name = child.stdout.readline().strip()
        # Wait for the exit but leave the child unreaped: its pid still names a zombie.
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
        with open(f"/proc/{child.pid}/stat", "rb") as f:
            assert f.read().rsplit(b")", 1)[1].split()[0] == b"Z"
        assert is_dead(name)
    finally:
        child.wait()
        if child.stdout is not None:
            child.stdout.close()


def test_a_reused_pid_is_not_the_owner() -> None:
    # This process's pid, but started at another time: the owner was an earlier process
    # that had this pid.
    mine = worker_id()
    start = int(_fields(mine)[5])
    assert is_dead(_with(mine, start=str(start - 1)))
    assert is_dead(_with(mine, start=str(start + 1)))


def test_what_cannot_be_proved_is_alive() -> None:
    gone = _exited_child_name()
    assert is_dead(gone)  # provably dead here, so each change below is what makes it unsure
    assert not is_dead(_with(gone, boot="0" * 32))  # another boot, or another machine
    assert not is_dead(_with(gone, ns="1"))  # another PID namespace (another container)
    assert not is_dead(_with(gone, host=socket.gethostname() + "-other"))
    host, pid, rand, *_ = _fields(gone)
    assert not is_dead(f"{host}:{pid}:{rand}")  # a name written by an earlier release
    assert not is_dead(f"{host}:{pid}:{rand}#4")
    for junk in ("", "#", "w1", "dead", "host:0:ab", _with(gone, pid="0"), gone + ":7",
                 _with(gone, start="x"), _with(gone, boot="Z" * 32)):
        assert not is_dead(junk), junk
