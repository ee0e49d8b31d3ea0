"""A TCP proxy on 127.0.0.1 in front of a database server, run by threads of this process, with
which a test takes the database away in each of the ways a server or its network fails:

- ``stop()``: the listener closes and every open connection is reset; new ones are refused.
  ``start()`` listens again on the same port.
- ``cut()``: every open connection is reset, and every new one is accepted and reset at once
  (psycopg fails fast, as on a refused connection). ``restore()``: they go through again.
- ``hanging``: new connections are accepted and never answered.
- ``muted``: open connections are read and never answered (no reset, no refusal).
"""

import contextlib
import select
import socket
import struct
import threading

import sqlalchemy as sa


class Proxy:
    """The proxy to ``host``:``port``; ``port`` is its own once started."""

    def __init__(self, host: str = "127.0.0.1", port: int = 5432) -> None:
        self.target = (host, port)
        self.port = 0
        self.hanging = False
        self.muted = False
        self.cutting = False
        self.refused = 0  # connections reset while cut
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def url(self, url: str) -> str:
        """``url`` going through this proxy."""
        through = sa.make_url(url).set(host="127.0.0.1", port=self.port)
        return through.render_as_string(hide_password=False)

    def start(self) -> None:
        """Listen (again, on the same port once it has one) and forward every connection."""
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(32)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        """Close the listener and reset every open connection."""
        if self._listener is not None:
            with contextlib.suppress(OSError):  # wakes the thread blocked in accept()
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        self._reset_all()

    def cut(self) -> None:
        """The database is gone: open connections reset, new ones accepted and reset."""
        self.cutting = True
        self._reset_all()

    def restore(self) -> None:
        self.cutting = False

    def _reset_all(self) -> None:
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            _reset(sock)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            if self.cutting:
                self.refused += 1
                _reset(client)
            elif self.hanging:
                self._keep(client)  # accepted, never answered
            else:
                self._forward(client)

    def _forward(self, client: socket.socket) -> None:
        """Connect ``client`` to the server and pass their bytes both ways in a thread."""
        try:
            server = socket.create_connection(self.target, timeout=2)
        except OSError:
            _reset(client)
            return
        self._keep(client, server)
        threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _keep(self, *sockets: socket.socket) -> None:
        with self._lock:
            self._sockets += sockets

    def _pump(self, client: socket.socket, server: socket.socket) -> None:
        other = {client: server, server: client}
        try:
            while True:
                ready, _, _ = select.select(list(other), [], [], 1.0)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    if not self.muted:  # muted: read, never passed on
                        other[sock].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            with self._lock:
                self._sockets = [s for s in self._sockets if s not in other]
            for sock in other:
                _reset(sock)


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER 0): the other side learns at once that it is gone."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.close()


def proxied(url: str) -> tuple[Proxy, str]:
    """A started Proxy to the server of ``url``, and ``url`` going through it."""
    parsed = sa.make_url(url)
    proxy = Proxy(parsed.host or "127.0.0.1", parsed.port or 5432)
    proxy.start()
    return proxy, proxy.url(url)
