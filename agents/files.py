"""Writing a file whole or not at all, without trusting what is already at its path."""
import os
import stat
import tempfile
from contextlib import contextmanager


class NotARegularFile(OSError):
    """The path to write names something other than a regular file (a device, a folder, a
    link, a pipe): replacing it by renaming would destroy it, so nothing is written."""


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def replacing(path, mode="w", encoding=None):
    """Open a new temporary file beside `path` for writing (`mode` "w" or "wb"); when the block
    ends without an exception it replaces `path` at once, so no reader sees half a file and a
    stopped run leaves none; on an exception it is removed and `path` is left as it was.

    The temporary file is made by `tempfile.mkstemp` (a new name, created exclusively: never
    through a link planted at a guessable name) and gets the permissions a new file would
    (0666 less the umask). A `path` that exists and is not a regular file (a device such as
    /dev/full, a folder, a symbolic link, a pipe) raises NotARegularFile before anything is
    written: renaming onto it would replace it."""
    if mode not in ("w", "wb"):
        raise ValueError(f"replacing: mode must be 'w' or 'wb', got {mode!r}")
    path = os.fspath(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISREG(st.st_mode):
            raise NotARegularFile(f"{path!r} exists and is not a regular file (nothing written)")
    folder, name = os.path.split(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, mode, encoding=encoding) as fh:
            fd = None
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
    finally:
        if fd is not None:
            os.close(fd)
        if tmp is not None:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass


def write_problem(path):
    """Return why a file could not be written at `path` (None if, as far as can be told before
    writing, it can): for a command to refuse before a long computation rather than after."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"no folder {folder!r}"
    if os.path.isdir(path):
        return "it is a folder"
    if os.path.exists(path):
        return None if os.access(path, os.W_OK) else "permission denied"
    return None if os.access(folder, os.W_OK | os.X_OK) else f"the folder {folder!r} is not writable"
