"""Personal access tokens of `symfind serve`: the file that holds them, and checking one.

Imports: msgspec, platformdirs, `storage`.

A token is `sfp_` followed by 43 random URL-safe characters (256 bits); it is shown once,
when it is created, and only its SHA-256 is kept. The file is `tokens.json` in the user's
config directory (`$SYMFIND_CONFIG_DIR`, else platformdirs' user config directory:
`~/.config/symfind/` on Linux); per token it holds the name, the digest, the repositories
the token may search (none listed: every repository a server serves), and when it was
created, expires and was last used. At most MAX_TOKENS.

The file is refused, never read nor written, when it is a symbolic link, is not a regular
file, belongs to another user, or other users may read or write it (any of mode 0o077); so
is its directory when it belongs to another user or others may write to it. It is
replaced atomically (a temporary file, fsync, rename) under an exclusive lock on
`tokens.lock` beside it: a crash while writing leaves the previous file whole, and two
writers at once (`token create` while the server records a use) lose nothing. A lock held
past `locks.LOCK_WAIT_S` (a `symfind token` stopped while writing) is reported, not
waited on forever.

A damaged file — JSON that does not decode, a record missing a field, a digest that is not
64 hex digits, a name `create` would refuse — is refused whole, by every command and by the
server, with one line naming the file and the line of the damage: a file edited by hand
and left half-done may be the revocation of a token, so nothing of it is trusted.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import msgspec
import platformdirs

from symfind.storage import escape_line, write_atomically
from symfind.storage.locks import LOCK_WAIT_S, flock_within

PREFIX = "sfp_"
MAX_TOKENS = 50
TOKENS_FILE = "tokens.json"
LOCK_FILE = "tokens.lock"
CONFIG_VARIABLE = "SYMFIND_CONFIG_DIR"
#: A name is also the client's name in the server's logs: letters, digits and `._@-`.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
#: What a stored digest is: hex SHA-256, as `create` writes it.
DIGEST_PATTERN = re.compile(r"[0-9a-f]{64}")
_FIELD_RULES = {"name": "one `symfind token create` accepts",
                "sha256": "a SHA-256 digest (64 hex digits)"}
_BLANK = re.compile(r"[ \t\n\r]*")
#: Far more than MAX_TOKENS records take; a bigger file is not ours.
MAX_FILE_BYTES = 1 << 20
_RANDOM_BYTES = 32


class TokenError(Exception):
    """A token command or check that cannot be done; the message is one line."""


class TokenFileError(TokenError):
    """The token file cannot be used: damaged, unreadable, unwritable, or unsafe."""


class UnsafeTokenFile(TokenFileError):
    """The token file or its directory could be read or changed by someone else."""


class Token(msgspec.Struct, frozen=True, kw_only=True):
    """One token as the file keeps it (never the token itself).

    Attributes:
        name: Who or what it is for (unique).
        sha256: Hex SHA-256 of the token.
        repos: Resolved repository roots it may search; empty for every one served.
        created_at: Seconds since the epoch.
        expires_at: When it stops working (seconds since the epoch), or None.
        last_used_at: When a server last accepted it, or None.
    """

    name: str
    sha256: str
    repos: tuple[str, ...] = ()
    created_at: float
    expires_at: float | None = None
    last_used_at: float | None = None

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at


class TokenFile(msgspec.Struct, frozen=True, kw_only=True):
    version: int = 1
    tokens: tuple[Token, ...] = ()


_DECODER = msgspec.json.Decoder(TokenFile)
_ENCODER = msgspec.json.Encoder()


def config_dir() -> Path:
    """Where the token file lives: `$SYMFIND_CONFIG_DIR` or the user config directory."""
    override = os.environ.get(CONFIG_VARIABLE)
    if override:
        return Path(override).expanduser().absolute()
    return Path(platformdirs.user_config_dir("symfind"))


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


def new_token() -> str:
    return PREFIX + secrets.token_urlsafe(_RANDOM_BYTES)


def match(tokens: Sequence[Token], presented: str) -> Token | None:
    """The token whose digest is the presented token's, comparing every stored digest in
    constant time and never stopping early: how long it takes tells nothing of which
    digest came close, nor where a match stands in the file."""
    wanted = digest(presented)
    found = None
    for token in tokens:
        if hmac.compare_digest(bytes.fromhex(token.sha256), wanted):
            found = token
    return found


def _offset(data: bytes, path: Sequence[str | int]) -> int | None:
    """Where in the JSON `data` the value at `path` (keys and list indexes) starts; None
    when `data` does not lead there."""
    text = data.decode("utf-8", "replace")
    decoder = json.JSONDecoder()

    def past(at: int, mark: str) -> int:
        at = _BLANK.match(text, at).end()  # type: ignore[union-attr]  # it matches everywhere
        if not text.startswith(mark, at):
            raise ValueError(f"no {mark!r} at {at}")
        return _BLANK.match(text, at + 1).end()  # type: ignore[union-attr]

    at = _BLANK.match(text).end()  # type: ignore[union-attr]
    try:
        for step in path:
            if isinstance(step, int):
                at = past(at, "[")
                for _ in range(step):
                    at = past(decoder.raw_decode(text, at)[1], ",")
                continue
            at = past(at, "{")
            while True:
                key, at = decoder.raw_decode(text, at)
                at = past(at, ":")
                if key == step:
                    break
                at = past(decoder.raw_decode(text, at)[1], ",")
    except (ValueError, RecursionError):
        return None
    return len(text[:at].encode("utf-8", "replace"))


def _line_of(data: bytes, offset: int | None) -> int | None:
    return data.count(b"\n", 0, offset) + 1 if offset is not None else None


class TokenStore:
    """The token file in `directory` (`config_dir()` by default).

    Args:
        directory: Where `tokens.json` and its lock live.
    """

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or config_dir()
        self.path = self.directory / TOKENS_FILE
        self.lock_path = self.directory / LOCK_FILE

    def read(self) -> tuple[Token, ...]:
        """The tokens (none when there is no file yet).

        Raises:
            UnsafeTokenFile: See the module docstring.
            TokenError: The file is damaged or cannot be read.
        """
        self._check_directory()
        data = self._read_bytes()
        if data is None:
            return ()
        try:
            tokens = _DECODER.decode(data).tokens
        except msgspec.ValidationError as exc:
            # "... - at `$.tokens[1].created_at`": the path of what is wrong.
            path = [int(index) if index else key for key, index in
                    re.findall(r"\.(\w+)|\[(\d+)\]", str(exc).rpartition(" - at ")[2])]
            raise self._damaged(str(exc), _line_of(data, _offset(data, path))) from None
        except msgspec.DecodeError as exc:
            found = re.search(r"\(byte (\d+)\)$", str(exc))
            raise self._damaged(str(exc), _line_of(data, int(found.group(1)) if found else None)
                                ) from None
        for number, token in enumerate(tokens):
            for field, wrong in (("name", not NAME_PATTERN.fullmatch(token.name)),
                                 ("sha256", not DIGEST_PATTERN.fullmatch(token.sha256))):
                if wrong:
                    line = _line_of(data, _offset(data, ["tokens", number, field]))
                    raise self._damaged(f"token {escape_line(token.name)[:64]!r}: its {field} "
                                        f"is not {_FIELD_RULES[field]}", line)
        return tokens

    def _damaged(self, why: str, line: int | None) -> TokenFileError:
        where = f"line {line}: " if line is not None else ""
        return TokenFileError(
            f"the token file {self._shown()} is damaged ({where}{escape_line(why)}); fix it, or "
            "remove it and create the tokens again")

    def file_key(self) -> tuple[int, ...] | None:
        """What changes whenever the file is replaced (None: there is no file), so that a
        server re-reads it only then."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise TokenFileError(self._os_error(exc)) from None
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode, st.st_uid)

    def create(
        self, name: str, *, repos: Sequence[str] = (), expires_at: float | None, now: float
    ) -> str:
        """Add a token; returns it (the only time it is ever known).

        Raises:
            TokenError: A bad or taken name, MAX_TOKENS reached, or the file fails.
        """
        if not NAME_PATTERN.fullmatch(name):
            raise TokenError(
                f"bad token name {escape_line(name)!r}: 1 to 64 letters, digits, `.`, `_`, `@` "
                "or `-`, starting with a letter or digit"
            )
        token = new_token()
        with self._locked():
            tokens = self.read()
            if any(t.name == name for t in tokens):
                raise TokenError(
                    f"a token named {name!r} exists already: revoke it first "
                    f"(`symfind token revoke {name}`) or pick another name"
                )
            if len(tokens) >= MAX_TOKENS:
                raise TokenError(
                    f"there are {len(tokens)} tokens already, the most there may be: revoke one "
                    "first (`symfind token list` shows them)"
                )
            record = Token(name=name, sha256=digest(token).hex(), repos=tuple(repos),
                           created_at=now, expires_at=expires_at)
            self._write((*tokens, record))
        return token

    def revoke(self, name: str) -> Token:
        """Remove the token named `name`; returns what the file held of it.

        Raises:
            TokenError: No such token, or the file fails.
        """
        with self._locked():
            tokens = self.read()
            gone = [t for t in tokens if t.name == name]
            if not gone:
                raise TokenError(
                    f"no token named {escape_line(name)!r} (`symfind token list` shows them)")
            self._write(tuple(t for t in tokens if t.name != name))
        return gone[0]

    def record_use(self, used: Mapping[str, float]) -> None:
        """Set the last use of the tokens whose digests are `used`'s keys. A token revoked
        meanwhile stays revoked (nothing is added back).

        Raises:
            TokenError: The file fails.
        """
        with self._locked():
            tokens = self.read()
            updated = tuple(
                msgspec.structs.replace(t, last_used_at=used[t.sha256])
                if t.sha256 in used and (t.last_used_at or 0) < used[t.sha256] else t
                for t in tokens
            )
            if updated != tokens:
                self._write(updated)

    # -- the file, safely -------------------------------------------------------------------

    def _shown(self) -> str:
        return escape_line(str(self.path))

    def _os_error(self, exc: OSError) -> str:
        reason = (exc.strerror or str(exc)).lower()
        return f"cannot use the token file {self._shown()}: {reason}"

    def _check_directory(self) -> None:
        try:
            st = os.stat(self.directory)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise TokenFileError(self._os_error(exc)) from None
        shown = escape_line(str(self.directory))
        if st.st_uid != os.geteuid():
            raise UnsafeTokenFile(
                f"refusing the token directory {shown}: it belongs to another user (uid "
                f"{st.st_uid})")
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise UnsafeTokenFile(
                f"refusing the token directory {shown}: other users may write to it (mode "
                f"{stat.S_IMODE(st.st_mode):04o}); run `chmod 700 {shown}`")

    def _check_file(self, st: os.stat_result) -> None:
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeTokenFile(f"refusing the token file {self._shown()}: not a regular file")
        if st.st_uid != os.geteuid():
            raise UnsafeTokenFile(
                f"refusing the token file {self._shown()}: it belongs to another user (uid "
                f"{st.st_uid})")
        if st.st_mode & 0o077:
            raise UnsafeTokenFile(
                f"refusing the token file {self._shown()}: other users may read or write it "
                f"(mode {stat.S_IMODE(st.st_mode):04o}); run `chmod 600 {self._shown()}`, "
                "and revoke its tokens if someone else may have read them")

    def _read_bytes(self) -> bytes | None:
        try:
            # O_NOFOLLOW: the checks below are then about the file that is read.
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafeTokenFile(
                    f"refusing the token file {self._shown()}: it is a symbolic link; replace "
                    "it with the file itself") from None
            raise TokenFileError(self._os_error(exc)) from None
        with os.fdopen(fd, "rb") as handle:
            self._check_file(os.fstat(handle.fileno()))
            try:
                data = handle.read(MAX_FILE_BYTES + 1)
            except OSError as exc:
                raise TokenFileError(self._os_error(exc)) from None
        if len(data) > MAX_FILE_BYTES:
            raise TokenFileError(f"the token file {self._shown()} is too big to be ours")
        return data

    def _write(self, tokens: tuple[Token, ...]) -> None:
        data = msgspec.json.format(_ENCODER.encode(TokenFile(tokens=tokens)), indent=2) + b"\n"
        try:
            write_atomically(self.path, data)  # its temporary file is created mode 0600
        except OSError as exc:
            raise TokenFileError(self._os_error(exc)) from None

    @contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise TokenFileError(self._os_error(exc)) from None
        self._check_directory()
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o600)
        except OSError as exc:
            raise TokenFileError(self._os_error(exc)) from None
        try:
            if not flock_within(fd):
                raise TokenFileError(
                    f"another process has held the lock of the token file {self._shown()} "
                    f"for {LOCK_WAIT_S:.0f} s (a stopped `symfind token`?) — resume or stop "
                    "it, then try again")
            yield
        finally:
            os.close(fd)
