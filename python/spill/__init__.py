"""Where the ``spill`` binary of this package is installed.

The wheel carries the real, statically linked binary (no Python in the call path): a harness asks
for its path once and runs it directly, for example::

    import subprocess, spill
    envelope = subprocess.run([spill.bin_path(), "wrap"], input=output, capture_output=True).stdout

Nothing here re-implements spill; every capability is the binary's.
"""

from __future__ import annotations

import os
import sys
import sysconfig

__all__ = ["bin_path"]

_EXE = "spill" + (".exe" if sys.platform == "win32" else "")


def _candidates():
    # The scripts directory of the environment this module was installed into (a virtual
    # environment or the system), then the user scheme's (`pip install --user`).
    yield sysconfig.get_path("scripts")
    if sys.version_info >= (3, 10):
        user = sysconfig.get_preferred_scheme("user")
    else:
        user = "nt_user" if os.name == "nt" else "posix_user"
    yield sysconfig.get_path("scripts", scheme=user)
    # `pip install --target DIR`: the binary sits in DIR/bin beside the package.
    yield os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bin")


def bin_path() -> str:
    """The absolute path of the installed ``spill`` binary.

    Raises ``FileNotFoundError`` when the wheel's binary is not where pip puts scripts.
    """
    seen = []
    for directory in _candidates():
        if not directory or directory in seen:
            continue
        seen.append(directory)
        path = os.path.join(directory, _EXE)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(
        "the spill binary of the spill-cli package was not found in " + ", ".join(seen)
    )
