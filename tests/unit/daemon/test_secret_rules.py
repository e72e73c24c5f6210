"""Which names the credential rules take: key and config files, never source code."""

from __future__ import annotations

import pytest

from symfind.daemon.walk import has_bad_name, is_secret, printable_path

SECRET = [
    ".env", ".env.local", ".ENV.production", "config/.env", "id_rsa", "ID_RSA", "id_ed25519",
    "id_rsa.pub", "server.pem", "certs/server.KEY", "store.p12", "app.jks", ".npmrc", ".pypirc",
    ".netrc", ".git-credentials", "credentials", "Credentials", "credentials.json",
    "Credentials.ini", "deploy/credentials.yaml", "credentials.yml", "credentials.toml",
    "credentials.xml", "credentials.csv", "credentials.cfg", "credentials.conf",
    ".aws/credentials", ".aws/config", "home/.ssh/known_hosts", ".ssh/helper.py",
    ".gnupg/pubring.kbx",
]
NOT_SECRET = [
    "credentials.py", "Credentials.py", "credentials.go", "credentials/tls.go",
    "credentials/alts/handshaker.go", "google/auth/credentials.py", "Credentials.java",
    "credentials.rb", "credentials.ts", ".env.py", "id_rsa.py", "env.py", "keys.py",
    "credentials_prod.yaml", "credentialsx", "src/aws/client.go", "ssh/session.go",
]


@pytest.mark.parametrize("path", SECRET)
def test_credential_files_are_secret(path: str) -> None:
    assert is_secret(path)


@pytest.mark.parametrize("path", NOT_SECRET)
def test_source_code_and_look_alikes_are_not_secret(path: str) -> None:
    assert not is_secret(path)


def test_names_that_are_not_utf8_are_told_and_shown_escaped() -> None:
    name = b"pkg/bad\xffname.py".decode("utf-8", "surrogateescape")
    assert (has_bad_name(name), has_bad_name("pkg/caf\u00e9.py")) == (True, False)
    assert printable_path(name) == "pkg/bad\\xffname.py"
    assert printable_path("pkg/caf\u00e9.py") == "pkg/caf\u00e9.py"
