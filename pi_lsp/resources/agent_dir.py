"""Where Pi keeps its files, and the small path and text conventions every reader shares.

The agent dir is the explicit argument, else ``$PI_CODING_AGENT_DIR`` (a leading ``~`` or
``~/`` expanded), else ``~/.pi/agent``. Paths follow Node's rules as Pi uses them: *resolved*
paths are absolute and normalized but keep symlinks, *canonical* paths are ``realpath`` with a
fallback to the resolved path when the file does not exist (spec §16.2).
"""

from __future__ import annotations

import errno
import os
import re
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote, urlsplit

from pi_lsp.regular_files import RefusedFileError
from pi_lsp.resources.layout import CONFIG_DIR_NAME
from pi_lsp.resources.model import SourceRange

AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"

AgentDirSource = Literal["argument", "environment", "default"]


@dataclass(frozen=True, slots=True)
class AgentDir:
    """The resolved agent dir and which rule chose it."""

    path: str
    source: AgentDirSource


def home_dir(env: Mapping[str, str] | None = None) -> str:
    """Node's ``os.homedir()``: ``$HOME`` when set and non-empty, else the password database."""
    environ = os.environ if env is None else env
    home = environ.get("HOME", "")
    if home:
        return home
    return os.path.expanduser("~") if env is None else _passwd_home()


def _passwd_home() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):  # pragma: no cover - platform dependent
        return os.path.expanduser("~")


def expand_tilde(path: str, home: str | None = None) -> str:
    """Expand ``~`` and ``~/…`` (not ``~user``) and turn ``file://`` URLs into paths."""
    if path == "~":
        return home if home is not None else home_dir()
    if path.startswith("~/"):
        return os.path.join(home if home is not None else home_dir(), path[2:])
    if path.startswith("file://"):
        return unquote(urlsplit(path).path)
    return path


def resolve_path(path: str, base: str | None = None, home: str | None = None) -> str:
    """Pi's ``resolvePath``: expand ``~``, then make absolute against ``base`` (default: cwd)."""
    expanded = expand_tilde(path, home)
    if not os.path.isabs(expanded):
        expanded = os.path.join(base if base is not None else os.getcwd(), expanded)
    resolved = os.path.normpath(expanded)
    # Node collapses a leading "//" that POSIX normpath keeps.
    if resolved.startswith("//") and not resolved.startswith("///"):
        resolved = resolved[1:]
    return resolved


def canonicalize_path(path: str) -> str:
    """``realpath`` of ``path``, or ``path`` itself when it cannot be resolved (missing, loop)."""
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, RuntimeError):
        return path


def agent_dir_info(
    explicit: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    home: str | None = None,
    cwd: str | None = None,
) -> AgentDir:
    """Locate the agent dir (absolute, not realpath'ed) and say which rule decided."""
    environ = os.environ if env is None else env
    home_path = home if home is not None else home_dir(env)
    if explicit:
        return AgentDir(resolve_path(explicit, cwd, home_path), "argument")
    from_env = environ.get(AGENT_DIR_ENV, "")
    if from_env:
        return AgentDir(resolve_path(from_env, cwd, home_path), "environment")
    return AgentDir(resolve_path(os.path.join(home_path, CONFIG_DIR_NAME, "agent"), cwd), "default")


def resolve_agent_dir(
    explicit: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    home: str | None = None,
    cwd: str | None = None,
) -> str:
    """The agent dir as an absolute path (see :func:`agent_dir_info`)."""
    return agent_dir_info(explicit, env=env, home=home, cwd=cwd).path


# ---------------------------------------------------------------------------------------------
# Text and error conventions shared by the readers in this package


def decode_text(data: bytes) -> tuple[str, bool, int | None]:
    """Decode like Node's ``readFileSync(path, "utf-8")`` followed by Pi's ``stripBom``.

    Returns ``(text, had_bom, first_bad)``: invalid UTF-8 becomes U+FFFD (maximal subparts,
    as Node does) and ``first_bad`` is the code-point offset in ``text`` of the first
    replacement that came from an invalid byte, or ``None`` when the bytes were valid.
    """
    first_bad: int | None = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        prefix = data[: error.start].decode("utf-8")
        text = data.decode("utf-8", "replace")
        first_bad = len(prefix)
    had_bom = text.startswith("\ufeff")
    if had_bom:
        text = text[1:]
        if first_bad is not None:
            first_bad -= 1
    return text, had_bom, first_bad


def offset_to_position(text: str, offset: int) -> tuple[int, int]:
    """0-based (line, code-point column) of one offset (see :class:`LineIndex` for many)."""
    head = text[:offset]
    line = head.count("\n") + head.count("\r") - head.count("\r\n")
    last = max(head.rfind("\n"), head.rfind("\r"))
    return line, offset - (last + 1)


class LineIndex:
    """Offsets → 0-based (line, code-point column); ``\\n``, ``\\r\\n`` and ``\\r`` end a line."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._starts, offset) - 1
        return line, offset - self._starts[line]

    def range(self, path: str, start: int, end: int) -> SourceRange:
        start_line, start_column = self.position(start)
        end_line, end_column = self.position(end)
        return SourceRange(path, start_line, start_column, end_line, end_column)


_NODE_ERRNO_TEXT: dict[int, str] = {
    errno.ENOENT: "no such file or directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EISDIR: "illegal operation on a directory",
    errno.ENOTDIR: "not a directory",
    errno.ELOOP: "too many symbolic links encountered",
    errno.ENAMETOOLONG: "name too long",
    errno.EIO: "i/o error",
    errno.EMFILE: "too many open files",
    errno.EEXIST: "file already exists",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on device",
}


def node_error_text(error: OSError, syscall: str, path: str | None = None) -> str:
    """The ``message`` Node gives a failed fs call, e.g. ``EACCES: permission denied, open '/x'``.

    ``read`` failures (a directory opened for reading) carry no path in Node's message. A
    file pi-lsp refuses to read (a pipe, a device, one over its size limit: Node would block
    or read for ever) is worded by pi-lsp, naming the path.
    """
    if isinstance(error, RefusedFileError) and error.kind != "directory":
        return str(error)
    number = error.errno or 0
    code = errno.errorcode.get(number, "UNKNOWN")
    text = _NODE_ERRNO_TEXT.get(number, (error.strerror or str(error)).lower())
    if number == errno.EISDIR:
        return f"{code}: {text}, read"
    where = f" '{path}'" if path is not None else ""
    return f"{code}: {text}, {syscall}{where}"
