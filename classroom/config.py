"""Where the class store lives: an environment variable, Streamlit's secrets, or a local file."""

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

ENV_URL = "CLASSROOM_DB_URL"
ENV_DATA = "CLASSROOM_DATA_DIR"
SECRETS = Path(".streamlit") / "secrets.toml"


def _secrets_url(path: Path) -> str | None:
    """``url`` under ``[connections.classroom]`` in a secrets file, if the file says one."""
    if not path.is_file():
        return None
    try:
        secrets = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{path} cannot be read as TOML: {error}") from error
    url = secrets.get("connections", {}).get("classroom", {}).get("url")
    return url if isinstance(url, str) and url else None


def default_url(
    cwd: Path | None = None, home: Path | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """The store's URL: $CLASSROOM_DB_URL; else ``url`` under ``[connections.classroom]`` in
    ``.streamlit/secrets.toml`` of the working folder, then of the home folder (Streamlit's own
    order: the project's file wins); else the SQLite file ``classroom.db`` in
    $CLASSROOM_DATA_DIR or ``data/`` of the working folder (created if missing).

    Example:
        >>> default_url(environ={"CLASSROOM_DB_URL": "postgresql+psycopg://db/class"})
        'postgresql+psycopg://db/class'
    """
    environ = os.environ if environ is None else environ
    cwd = Path.cwd() if cwd is None else cwd
    home = Path.home() if home is None else home
    if environ.get(ENV_URL):
        return environ[ENV_URL]
    for folder in (cwd, home):
        url = _secrets_url(folder / SECRETS)
        if url:
            return url
    data = Path(environ[ENV_DATA]) if environ.get(ENV_DATA) else cwd / "data"
    data.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{(data / 'classroom.db').resolve()}"
