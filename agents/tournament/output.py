"""The records file of a running tournament: checked, locked, read once (streaming), then appended to.

`RecordsOutput(path)` is the runner's only door to its file:

1. `check(resume)` before any work (the warm-up included): the folder exists and can be
   written, the path is not a folder, a device or a pipe, and an existing file is continued
   only with `resume`.
2. `open(resume)` creates the file (a fresh run) or opens it (a resume) and takes an exclusive
   OS lock on it for the whole run (`flock`; `msvcrt.locking` on Windows): a second runner on
   the same file refuses at once and names the process that holds it. The lock goes with its
   process, so one left by a killed runner never blocks a resume.
3. `existing(check_record)` reads every line of a resumed file, streaming, and checks it (the record
   schema of `agents.records`, then the caller's check: same tournament, an id of its
   schedule; the caller refuses an id twice with another result) before anything is written or cut: a file that
   is not this tournament's records is refused and left byte-identical. Only then does
   `cut_tail()` remove what a kill left unfinished (a last line without its newline, a cut
   gzip member).
4. `append(lines)` writes whole lines (compressed for a `.gz` name) and flushes them;
   `close()` releases the lock and removes a file this run created but never wrote to.
"""
import os
import stat

from ..records import RecordError, RecordsAppender, ReadReport, cut_tail, is_gzip, iter_records
from .config import TournamentError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
    import msvcrt


class RecordsOutput:
    """The records file of one tournament run (see the module's docstring)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.gz = is_gzip(self.path)
        self.fh = None
        self.created = False
        self.written = 0
        self.report = ReadReport()
        self._appender = None

    # ---- before any work --------------------------------------------------------------------
    def check(self, resume):
        """Raise TournamentError if the records cannot be written to `path` (nothing is created)."""
        path = self.path
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise TournamentError(f"cannot write the records to {path}: no folder {folder}")
        try:
            info = os.stat(path)
        except FileNotFoundError:
            info = None
        except OSError as err:
            raise TournamentError(f"cannot use {path} for the records: {err.strerror or err}") from None
        if info is not None:
            if stat.S_ISDIR(info.st_mode):
                raise TournamentError(f"{path} is a folder: --out names the records file")
            if not stat.S_ISREG(info.st_mode):
                raise TournamentError(f"{path} is not a regular file: records go to a file")
            if not resume:
                raise TournamentError(f"{path} exists: pass --resume to continue it, or choose another --out")
            if not os.access(path, os.R_OK | os.W_OK):
                raise TournamentError(f"cannot read and write {path} to resume it: permission denied")
            self._refuse_if_locked()
        elif not os.access(folder, os.W_OK | os.X_OK):
            raise TournamentError(f"cannot write the records to {path}: the folder {folder} is not writable")

    # ---- the run ------------------------------------------------------------------------------
    def open(self, resume):
        """Create or open the file and lock it for this process (TournamentError if another holds it)."""
        self.check(resume)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o644)
            self.created = True
        except FileExistsError:
            if not resume:
                self._refuse_if_locked()
                raise TournamentError(f"{self.path} exists: pass --resume to continue it, or choose another --out") from None
            fd = self._open_existing()
        except OSError as err:
            raise TournamentError(f"cannot create {self.path}: {err.strerror or err}") from None
        self.fh = os.fdopen(fd, "r+b", buffering=0)  # unbuffered: a refused write leaves nothing pending
        try:
            _lock(self.fh.fileno())
        except OSError:
            self.fh.close()
            self.fh = None
            raise TournamentError(f"{self.path} is in use by {_holder(self.path)}: two runners on one "
                                  f"records file would play every game twice; wait for it or stop it") from None

    def _open_existing(self):
        try:
            fd = os.open(self.path, os.O_RDWR | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0))
        except OSError as err:
            raise TournamentError(f"cannot open {self.path} to resume it: {err.strerror or err}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise TournamentError(f"{self.path} is not a regular file: records go to a file")
        return fd

    def _refuse_if_locked(self):
        try:
            fd = self._open_existing()
        except TournamentError:
            return
        try:
            _lock(fd)
        except OSError:
            raise TournamentError(f"{self.path} is in use by {_holder(self.path)}") from None
        finally:
            os.close(fd)  # closing the descriptor releases a lock taken on it

    def existing(self, check):
        """Yield each record of the file after `check(record)` accepted it; a bad line raises
        TournamentError naming it (the file is untouched). Read it whole before writing."""
        try:
            for record in iter_records(self.path, self.report):  # the caller counts repeats
                check(record)
                yield record
        except RecordError as err:
            raise TournamentError(f"{err}; this file is not this tournament's records: it was left "
                                  f"as it is (choose another --out, or fix the file)") from None

    def cut_tail(self):
        """Cut what a kill left unfinished at the end; return the bytes cut."""
        return cut_tail(self.fh, self.gz)

    def append(self, lines):
        """Append whole record lines and flush them (TournamentError if the disk refuses)."""
        if self._appender is None:
            self.fh.seek(0, os.SEEK_END)
            self._appender = RecordsAppender(self.fh, self.gz)
        try:
            self._appender.write(lines)
        except OSError as err:
            raise TournamentError(f"cannot write to {self.path}: {err.strerror or err}; every game "
                                  f"finished before is in it: resume with --resume once this is mended") from None
        self.written += len(lines)

    def close(self):
        """End the file (a gzip member), release the lock; remove the file if this run created it
        and wrote nothing."""
        if self.fh is None:
            return
        try:
            if self._appender is not None:
                self._appender.close()
        except OSError:
            pass  # a full disk: what was flushed before is whole
        if self.created and self.written == 0:
            try:
                if os.fstat(self.fh.fileno()).st_size == 0:
                    os.unlink(self.path)
            except OSError:
                pass
        try:
            self.fh.close()  # the lock goes with the descriptor
        except OSError:
            pass
        self.fh = None


def _lock(fd):
    """Take an exclusive lock on an open file without waiting (OSError if another process has it)."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    else:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)


def _holder(path):
    """Return which process holds the lock on `path`, as far as the system says ('another process')."""
    try:
        info = os.stat(path)
        with open("/proc/locks", encoding="ascii") as fh:
            for line in fh:
                fields = line.split()
                if "FLOCK" not in fields or "->" in fields:
                    continue
                pid, where = fields[4], fields[5]
                major, minor, inode = where.split(":")
                if (int(inode) == info.st_ino and int(major, 16) == os.major(info.st_dev)
                        and int(minor, 16) == os.minor(info.st_dev)):
                    return f"process {pid}{_command_of(pid)}"
    except (OSError, ValueError, IndexError):
        pass
    return "another process"


def _command_of(pid):
    """Return ' (its command line)' of a process, shortened, or '' if it cannot be read."""
    try:
        with open(f"/proc/{int(pid)}/cmdline", "rb") as fh:
            words = fh.read(4096).split(b"\0")
    except (OSError, ValueError):
        return ""
    text = " ".join(w.decode("utf-8", "replace") for w in words if w)
    text = "".join(c if c.isprintable() else "?" for c in text)
    return f" ({text[:100]}{'...' if len(text) > 100 else ''})" if text else ""
