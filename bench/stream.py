"""A browser tab reduced to its websocket, speaking Streamlit's own protocol as the browser does.
bench.load, bench.classroom and bench.replicas play their classes through it, and the replica
tests their phones.

``Tab`` sends reruns and reads each to its end in the caller's thread. ``LiveTab`` reads every
message in a thread of its own and sends its fragments' polls when a ``Clock`` finds them due,
whether a run is going on or not, as a browser's ``setInterval`` does.
"""

import contextlib
import threading
import time
from collections.abc import Callable

import websocket
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

STATUS = ForwardMsg.ScriptFinishedStatus


def widget_id(element: Element) -> str:
    """The id of a widget (or of a chart: any element that has one); "" for others."""
    kind = element.WhichOneof("type") or ""
    return str(getattr(getattr(element, kind, None), "id", "") or "")


class Tab:
    """One browser tab: it sends a rerun as the browser's ``sendRerunBackMsg`` builds it (the
    URL's query, the page by its hash or else by its URL path, the widgets' values, a fragment)
    and keeps what the browser keeps of the server's messages: the page's hash, the URL's query,
    the widgets' ids, fragments and options, the fragments' timers."""

    def __init__(self, base: str, query: str = "", page: str = "", timeout: float = 60) -> None:
        self.base = base
        self.query = query
        self.page = page  # the URL path it opens ("" for the default page)
        self.timeout = timeout
        self.ws: websocket.WebSocket | None = None
        self.page_hash = ""
        self.widget_ids: dict[str, str] = {}  # widget key → its id
        self.fragments: dict[str, str] = {}  # widget key → its fragment's id
        self.options: dict[str, list[str]] = {}  # a select box's key → its options' labels
        self.timers: dict[str, float] = {}  # fragment id → interval, s
        self.due: dict[str, float] = {}  # fragment id → when it runs next (time.monotonic)
        self.failures: list[str] = []

    # --- connecting and sending -------------------------------------------------------------

    def connect(self, cookie: str | None = None, agent: str | None = None) -> "Tab":
        """Open the websocket, with a ``Cookie`` header and a ``User-Agent`` if given."""
        url = self.base.replace("http", "ws", 1) + "/_stcore/stream"
        header = [f"User-Agent: {agent}"] if agent else None
        self.ws = websocket.create_connection(
            url, subprotocols=["streamlit"], timeout=self.timeout, cookie=cookie, header=header
        )
        return self

    def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.close()
            self.ws = None

    def send(
        self,
        widgets: dict[str, object] | None = None,
        fragment: str = "",
        auto: bool = False,
        page: str | None = None,
        query: str | None = None,
    ) -> None:
        """Send a rerun request without waiting for its run: widget key → value (True taps a
        button), the fragment to rerun alone, whether a timer sent it; ``page`` opens another
        page by its URL path (a click on its link), ``query`` stands for the URL's own."""
        message = BackMsg()
        rerun = message.rerun_script
        rerun.query_string = self.query if query is None else query
        rerun.page_script_hash = self.page_hash if page is None else ""
        rerun.page_name = self.page if page is None else page  # read when there is no hash
        rerun.fragment_id = fragment
        rerun.is_auto_rerun = auto
        for key, value in (widgets or {}).items():
            state = rerun.widget_states.widgets.add()
            state.id = self.widget_ids[key]
            if value is True:
                state.trigger_value = True
            elif isinstance(value, str):
                state.string_value = value
            else:
                state.double_value = float(value)  # type: ignore[arg-type]
        self._write(message.SerializeToString())

    def _write(self, data: bytes) -> None:
        assert self.ws is not None, "connect() first"
        self.ws.send_binary(data)

    def fragment_of(self, widgets: dict[str, object]) -> str:
        """As a browser does: a change to widgets of one fragment reruns that fragment alone."""
        (fragment, *others) = {self.fragments.get(key, "") for key in widgets} or {""}
        return "" if others else fragment

    # --- reading --------------------------------------------------------------------------

    def read_run(self, seconds: float | None = None) -> int:
        """Read until a script run ends without asking for another (a page that reruns itself
        while it works ends its runs early), within ``seconds`` in all (None: each message
        within the tab's timeout); the bytes received."""
        assert self.ws is not None, "connect() first"
        deadline = None if seconds is None else time.monotonic() + seconds
        size = 0
        while True:
            if deadline is not None:
                self.ws.settimeout(max(0.1, deadline - time.monotonic()))
            frame = self.ws.recv()
            size += len(frame)
            message = self.receive(frame)
            finished = message.WhichOneof("type") == "script_finished"
            if finished and message.script_finished != STATUS.FINISHED_EARLY_FOR_RERUN:
                break
        for gone in set(self.due) - set(self.timers):  # a full run did not announce it again
            del self.due[gone]
        return size

    def drain(self, quiet: float = 2.0) -> None:
        """Read until the server has sent nothing for ``quiet`` seconds (after a burst)."""
        assert self.ws is not None, "connect() first"
        self.ws.settimeout(quiet)
        try:
            while True:
                self.receive(self.ws.recv())
        except websocket.WebSocketTimeoutException:
            pass
        finally:
            self.ws.settimeout(self.timeout)

    def receive(self, frame: bytes | str) -> ForwardMsg:
        """Parse one message from the server and keep what the browser keeps of it."""
        message = ForwardMsg()
        message.ParseFromString(frame)
        kind = message.WhichOneof("type")
        if kind == "new_session" and not message.metadata.run.fragment_ids:
            self.full_run()
        elif kind == "navigation":  # the page this run draws (not the entry script)
            self.page_hash = message.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query = message.page_info_changed.query_string
        elif kind == "auto_rerun" and message.auto_rerun.fragment_id:
            fragment, interval = message.auto_rerun.fragment_id, message.auto_rerun.interval
            self.timers[fragment] = interval
            self.due.setdefault(fragment, time.monotonic() + interval)
        elif kind == "stop_auto_rerun":
            for fragment in message.stop_auto_rerun.fragment_ids:
                self.timers.pop(fragment, None)
                self.due.pop(fragment, None)
        elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            path = tuple(message.metadata.delta_path)
            self.note(message.delta.new_element, message.delta.fragment_id, path)
        return message

    def full_run(self) -> None:
        """A full run starts: the browser drops every fragment's timer (its
        ``cleanupAutoReruns``), and the run's own ``auto_rerun`` messages set them again."""
        self.timers.clear()

    def key_of(self, element_id: str) -> str:
        """The key an element was given ("$$ID-<hash>-lab_d" → "lab_d"); "" for none."""
        return element_id.rsplit("-", 1)[-1] if element_id.startswith("$$ID") else ""

    def note(self, element: Element, fragment: str, path: tuple[int, ...]) -> None:
        """A new element: remember a widget's id, fragment and options; an exception is a
        failure."""
        element_id = widget_id(element)
        key = self.key_of(element_id)
        if key:
            self.widget_ids[key] = element_id
            self.fragments[key] = fragment
            if element.WhichOneof("type") == "selectbox":
                self.options[key] = list(element.selectbox.options)
        if element.WhichOneof("type") == "exception":
            self.failures.append(element.exception.message)


OnElement = Callable[["LiveTab", Element, str, float], None]


class LiveTab(Tab):
    """A tab that reads every message in a thread of its own (named ``name``), counts the runs
    that finished, and hands every new element to ``on_element(tab, element, fragment, time)``.
    A ``Clock`` sends its fragments' polls."""

    def __init__(
        self,
        base: str,
        name: str,
        page: str = "",
        agent: str | None = None,
        on_element: OnElement | None = None,
        timeout: float = 120,
    ) -> None:
        super().__init__(base, page=page, timeout=timeout)
        self.name = name
        self.on_element = on_element
        self.full_runs = 0  # full runs finished
        self.fragment_runs = 0  # fragment runs finished (the polls served)
        self.polls_sent = 0
        self.received_bytes = 0
        self.closing = False
        self._send_lock = threading.Lock()
        self._runs = threading.Condition()
        self.connect(agent=agent)
        threading.Thread(target=self._read, daemon=True, name=name).start()

    # --- sending ----------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        with self._send_lock:  # the reader's thread, the clock's and the caller's all send
            super()._write(data)

    def click(self, key: str, **others: object) -> None:
        """A click on the button ``key`` (its trigger), with ``others``' values; the fragment
        of the button when it lives in one, as the browser does."""
        self.send({**others, key: True}, fragment=self.fragments.get(key, ""))

    def run(self, widgets: dict[str, object] | None = None, timeout: float = 120) -> None:
        """Send a full rerun and wait until a full run has finished after it."""
        before = self.full_runs
        self.send(widgets)
        self.wait_full_run(before, timeout)

    def wait_full_run(self, before: int, timeout: float = 120) -> None:
        """Wait until more than ``before`` full runs have finished."""
        with self._runs:
            if not self._runs.wait_for(lambda: self.full_runs > before, timeout):
                raise TimeoutError(f"{self.name}: no full run finished within {timeout} s")

    def run_fragment(self, fragment: str, timeout: float = 60) -> None:
        """One rerun of ``fragment`` as its timer sends it; wait until it has finished."""
        with self._runs:
            before = self.fragment_runs
        self.send(fragment=fragment, auto=True)
        with self._runs:
            if not self._runs.wait_for(lambda: self.fragment_runs > before, timeout):
                raise TimeoutError(f"{self.name}: fragment run not finished in {timeout} s")

    def poll_due(self, now: float) -> None:
        """Send the rerun of every fragment whose timer is due (the browser's setInterval: the
        next one an interval after this one, unless that is past already)."""
        for fragment, due in list(self.due.items()):
            interval = self.timers.get(fragment)
            if interval is None or now < due or self.due.get(fragment) != due:
                continue  # not due, or its timer was dropped or set again meanwhile
            self.due[fragment] = due + interval if due + interval > now else now + interval
            try:
                self.send(fragment=fragment, auto=True)
                self.polls_sent += 1
            except Exception as error:  # a failure is counted, never hidden
                if not self.closing:
                    self.failures.append(f"poll: {error!r}")

    def close(self) -> None:
        self.closing = True
        self.timers.clear()
        self.due.clear()
        super().close()

    # --- reading ----------------------------------------------------------------------------

    def _read(self) -> None:
        ws = self.ws
        assert ws is not None
        while True:
            try:
                frame = ws.recv()
            except Exception as error:
                if not self.closing:
                    self.failures.append(f"websocket: {error!r}")
                return
            if not frame:
                return
            self.received_bytes += len(frame)
            message = self.receive(frame)
            if message.WhichOneof("type") == "script_finished":
                self._finished(message.script_finished)

    def full_run(self) -> None:
        super().full_run()
        self.due.clear()  # the browser's new setInterval starts when the run announces it

    def note(self, element: Element, fragment: str, path: tuple[int, ...]) -> None:
        super().note(element, fragment, path)
        if self.on_element is not None:
            self.on_element(self, element, fragment, time.time())

    def _finished(self, status: int) -> None:
        if status == STATUS.FINISHED_EARLY_FOR_RERUN:
            return
        with self._runs:
            if status == STATUS.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                self.fragment_runs += 1
            else:
                self.full_runs += 1
            self._runs.notify_all()


class Clock:
    """One thread that keeps every tab's fragment timers, as each browser's setInterval would."""

    def __init__(self, tabs: list[LiveTab]) -> None:
        self.tabs = tabs
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True, name="timers")

    def _tick(self) -> None:
        while not self._stop.wait(0.01):
            now = time.monotonic()
            for tab in list(self.tabs):
                try:
                    tab.poll_due(now)
                except Exception as error:  # a failure is counted, never hidden
                    tab.failures.append(f"timers: {error!r}")

    def __enter__(self) -> "Clock":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
