"""Exceptions raised by `daemon`. Imports: nothing of ours."""


class DaemonError(Exception):
    """Base class: the repository cannot be walked, indexed or served."""


class RepositoryError(DaemonError):
    """The repository path is missing, not a directory, or otherwise unusable."""


class DaemonRunning(DaemonError):
    """Another daemon already serves this repository."""


class ExtractionWorkerDied(DaemonError):
    """An extraction worker process ended abruptly; the files it held were not indexed."""


class UnsafeSocketDirectory(DaemonError):
    """The directory meant for the daemon's socket could be another user's (a symlink,
    not ours, or writable by others): using it would let them answer our searches."""


class DaemonNotAnswering(DaemonError):
    """A daemon runs but did not answer: busy past the client's timeout, suspended, or
    its socket gone or replaced. Never "no daemon": it runs, and `daemon stop` stops it.

    Attributes:
        what: What is the matter, without the way out (the message has both).
        pid: The daemon's process id, when known.
    """

    def __init__(self, what: str, hint: str, pid: int | None) -> None:
        super().__init__(f"{what} — {hint}")
        self.what = what
        self.pid = pid
