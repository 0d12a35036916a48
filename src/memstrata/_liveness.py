"""Worker names that can prove their own death, and the check that reads them.

A claim on the indexing queue or a summary lease names the worker that holds it. Both expire
with time, so a worker that died (kill -9, out of memory) frees its work on its own, minutes
later. A process on the same machine can do better: when the holder's process is gone, its
work can be taken over at once. This module owns the name that makes that provable and the
check itself.

A name is ``host:pid:random:boot:pidns:start``: the host name, the process id and a random part
(the name every release has used, so it stays unique per object), then the Linux boot id
(``/proc/sys/kernel/random/boot_id``, dashes removed), the inode of the process's PID
namespace and the process's start time (field 22 of ``/proc/<pid>/stat``, in clock ticks
since boot). A batch's claim token adds ``#<batch>``. Where ``/proc`` cannot be read (another
operating system, a sandbox), the name is ``host:pid:random`` as before and proves nothing.

:func:`is_dead` says ``True`` only when it can prove it: the owner ran under this boot of this
kernel, in this PID namespace, on a host of the same name, and its pid now names no process
(the kernel says so), a process that has exited but not been reaped, or a process started at
another time (the pid was reused). Anything else (another machine or container, a name of an
earlier release, a process it may not look at) is ``False``: the work then waits for its
expiry, as it always did.
"""

from __future__ import annotations

import os
import re
import socket

__all__ = ["is_dead", "owner_name"]

_PROC = "/proc"
_NAME = re.compile(r"^(?P<host>.*):(?P<pid>[0-9]+):(?P<rand>[0-9a-f]+):(?P<boot>[0-9a-f]{32})"
                   r":(?P<ns>[0-9]+):(?P<start>[0-9]+)$")
# A process that has exited but whose parent has not yet collected it: it holds no work.
_GONE_STATES = frozenset("ZX")


def owner_name(random_part: str) -> str:
    """This process's worker name around ``random_part`` (see the module's docstring)."""
    base = f"{socket.gethostname()}:{os.getpid()}:{random_part}"
    machine = _machine()
    start = _stat(os.getpid())
    if machine is None or start is None:
        return base
    return f"{base}:{machine[0]}:{machine[1]}:{start[1]}"


def is_dead(owner: str) -> bool:
    """``True`` only when ``owner`` (a worker name or a claim token) is provably a process of
    this machine that no longer runs; ``False`` when it runs or cannot be told."""
    found = _NAME.match(owner.split("#", 1)[0])
    if found is None or found["host"] != socket.gethostname():
        return False
    if _machine() != (found["boot"], found["ns"]):
        return False
    pid = int(found["pid"])
    if pid <= 0:
        return False
    try:
        # Signal 0 delivers nothing: it only asks the kernel whether the pid names a process
        # of our PID namespace (reached only on Linux: the boot id matched above).
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        pass  # it exists but is another user's: its start time still tells
    seen = _stat(pid)
    if seen is None:
        return False  # hidden or unreadable: cannot tell
    state, start = seen
    return state in _GONE_STATES or start != found["start"]


def _machine() -> tuple[str, str] | None:
    """This kernel's boot id (no dashes) and this process's PID namespace, or ``None``."""
    try:
        with open(os.path.join(_PROC, "sys/kernel/random/boot_id"), encoding="ascii") as f:
            boot = f.read().strip().replace("-", "").lower()
        namespace = os.readlink(os.path.join(_PROC, "self/ns/pid"))
    except (OSError, UnicodeDecodeError):
        return None
    inode = re.fullmatch(r"pid:\[([0-9]+)\]", namespace)
    if inode is None or re.fullmatch(r"[0-9a-f]{32}", boot) is None:
        return None
    return boot, inode[1]


def _stat(pid: int) -> tuple[str, str] | None:
    """The state and start time of process ``pid`` from ``/proc/<pid>/stat``, or ``None``
    when it cannot be read."""
    try:
        with open(os.path.join(_PROC, str(pid), "stat"), "rb") as f:
            raw = f.read()
    except OSError:
        return None
    # The command name (field 2) sits in parentheses and may hold spaces or parentheses
    # itself: the fields after the last ")" are 3 (state) onwards, so 22 is the 20th.
    fields = raw[raw.rfind(b")") + 1:].split()
    if len(fields) < 20 or not fields[19].isdigit():
        return None
    return fields[0].decode("ascii", "replace"), fields[19].decode("ascii")
