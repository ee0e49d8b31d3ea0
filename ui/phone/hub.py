"""The server's watch over its rooms: one roster per room version, read once and shared by every
phone that asks, and the waiting requests woken the moment the room moves.

A change made through this server's own store wakes the room at once (``Store.listen``); a
change made elsewhere (another replica, a script) is noticed by one cheap query per room every
CHECK seconds while someone waits on that room, never one per phone. Every store call runs in
the hub's own threads: the event loop never blocks, and Streamlit's thread limiter (shared with
its static files) is left alone.
"""

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from classroom import Busy, NotFound, Store, Unavailable
from classroom.safety import digest
from classroom.store import Roster

T = TypeVar("T")
log = logging.getLogger(__name__)

CHECK = 0.25  # s between one room's looks at the database while someone waits on it
CHECK_HEARD = 2.0  # s between them on PostgreSQL, whose NOTIFY wakes a room at once: a net only
FRESH = 0.25  # s a roster is trusted without asking the database again
WAIT = 25.0  # s a long-poll waits before it answers with the same version
MAX_WAITING = 2000  # waiting requests per server; beyond, 503 and Retry-After
MAX_ROOMS = 500  # rooms kept in memory (least recently used go first)
THREADS = 10  # the store's pool on PostgreSQL: 5 connections and 5 overflow


@dataclass
class Watched:
    """One room as this server holds it."""

    roster: Roster | None = None
    gone: NotFound | None = None  # ended or expired while watched
    checked: float = -1.0  # monotonic time of the last look at the database
    stale: bool = True  # read the roster at the next look, even if the counters stand still
    answers: int = -1  # the answer counter as last seen (the roster may be older)
    moved: asyncio.Event = field(default_factory=asyncio.Event)  # set when the version moves
    counted: asyncio.Event = field(default_factory=asyncio.Event)  # set when answers move
    poked: asyncio.Event = field(default_factory=asyncio.Event)  # this server changed it
    waiting: int = 0
    watcher: asyncio.Task[None] | None = None
    reading: asyncio.Future[Roster] | None = None  # the roster read in flight, shared
    told: tuple[Roster, bytes] | None = None  # the roster's JSON for every phone, made once


class Hub:
    """Rooms, their rosters and their waiting requests, for one store in one event loop."""

    def __init__(self, store: Store, loop: asyncio.AbstractEventLoop) -> None:
        self.store = store
        self.loop = loop
        self.rooms: OrderedDict[str, Watched] = OrderedDict()
        self.waiting = 0
        self.executor = ThreadPoolExecutor(THREADS, thread_name_prefix="phone-store")
        store.listen(self._heard)  # this server's own changes
        self.check = CHECK_HEARD if store.shared else CHECK
        self.stop = threading.Event()
        if store.shared:  # other servers' changes, told by PostgreSQL
            hearing = threading.Thread(target=store.hear, args=(self._heard, self.stop),
                                       name="phone-hear", daemon=True)  # fmt: skip
            hearing.start()

    def close(self) -> None:
        """Stop hearing PostgreSQL and let the threads go (a server's store replaced: tests)."""
        self.stop.set()
        self.executor.shutdown(wait=False)

    def call(self, function: Callable[..., T], *args: Any) -> Awaitable[T]:
        """A store call in the hub's threads."""
        return self.loop.run_in_executor(self.executor, function, *args)

    def _heard(self, code: str, kind: str) -> None:
        """The store committed a change to ``code`` (any thread): look at it now."""
        with suppress(RuntimeError):  # the loop has closed: nothing waits any more
            self.loop.call_soon_threadsafe(self._poke, code, kind)

    def _poke(self, code: str, kind: str) -> None:
        if code == "*":  # the listener was away: every room may have moved
            for known in list(self.rooms):
                self._poke(known, kind)
            return
        room = self.rooms.get(code)
        if room is None:
            return
        if kind != "answer":  # a join or a rename moves no counter: read the roster again
            room.checked, room.stale = -1.0, True
        room.poked.set()  # an answer: the counter, for the projector's count

    def note_answer(self, code: str, token: str, text: str, key: str) -> None:
        """This server saved ``token``'s answer: its roster says so at once, without reading
        every student's answer again (one answer more on its counter)."""
        room = self.rooms.get(code)
        roster = room.roster if room is not None else None
        mine = roster.students.get(digest(token)) if roster is not None else None
        if room is None or roster is None or mine is None:
            return
        students = roster.students | {digest(token): replace(mine, answer=text, answer_key=key)}
        room.roster = replace(roster, students=students, answers=roster.answers + 1)

    def _room(self, code: str) -> Watched:
        room = self.rooms.get(code)
        if room is None:
            while len(self.rooms) >= MAX_ROOMS:
                self._forget_oldest()
            room = self.rooms[code] = Watched()
        self.rooms.move_to_end(code)
        return room

    def _forget_oldest(self) -> None:
        for code, room in self.rooms.items():
            if not room.waiting:
                del self.rooms[code]
                return
        raise Busy("too_many_waiting")  # every kept room has someone waiting

    async def roster(self, code: str, again: bool = False, whole: bool = True) -> Roster:
        """The room now: the kept roster when it was checked within FRESH seconds or the
        database's counters have not moved, else read again (one read shared by all who ask);
        ``again``: read it whatever the counters say (a token it does not hold yet); not
        ``whole``: its answers may lag the counter (a long-poll needs only the version)."""
        room = self._room(code)
        room.stale = room.stale or again
        kept = room.roster
        fresh = kept is not None and time.monotonic() - room.checked < FRESH
        if fresh and not again and kept and (not whole or kept.answers >= room.answers):
            return kept
        return await self._look(code, room, whole)

    async def _look(self, code: str, room: Watched, whole: bool = True) -> Roster:
        """Ask the database for the room's two counters; read the roster when they moved (when
        only the answer counter moved, only for a ``whole`` look)."""
        while room.reading is not None:
            roster = await asyncio.shield(room.reading)
            if not whole or roster.answers >= room.answers:
                return roster
        reading = room.reading = self.loop.create_future()
        try:
            roster = await self._read(code, room, whole)
            reading.set_result(roster)
            return roster
        except Exception as error:
            reading.set_exception(error)
            reading.exception()  # marked retrieved: nobody else may be waiting on it
            raise
        finally:
            reading.cancel()  # cancelled itself: those waiting on it ask again
            room.reading = None

    async def _read(self, code: str, room: Watched, whole: bool) -> Roster:
        checked = time.monotonic()
        try:
            version, answers = await self.call(self.store.beat, code)
            old = new = room.roster
            moved = new is None or version != new.view.version
            if room.stale or moved or (whole and new is not None and answers != new.answers):
                room.stale = False
                new = room.roster = await self.call(self.store.roster, code)
        except NotFound as error:
            room.gone, room.roster = error, None
            self._wake(room, moved=True, counted=True)
            raise
        assert new is not None
        counted = max(answers, new.answers) != room.answers
        room.checked, room.gone, room.answers = checked, None, max(answers, new.answers)
        self._wake(room, new.view.version != _version(old), counted)
        return new

    def _wake(self, room: Watched, moved: bool, counted: bool) -> None:
        """Wake every request waiting for the version (``moved``) or for the answers."""
        if moved:
            room.moved.set()
            room.moved = asyncio.Event()
        if counted:
            room.counted.set()
            room.counted = asyncio.Event()

    async def wait(
        self, code: str, ready: Callable[[Watched], bool], counted: bool = False
    ) -> Watched:
        """The room once ``ready(room)`` holds, or after WAIT seconds as it then is. Wakes on
        the version, or on the answer counter (``counted``)."""
        await self.roster(code, whole=False)
        room = self._room(code)
        if ready(room):
            return room
        if self.waiting >= MAX_WAITING:
            raise Busy("too_many_waiting")
        self.waiting += 1
        room.waiting += 1
        if room.watcher is None or room.watcher.done():
            room.watcher = self.loop.create_task(self._watch(code, room))
        try:
            deadline = self.loop.time() + WAIT
            while not ready(room) and self.loop.time() < deadline:
                event = room.counted if counted else room.moved
                with suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), deadline - self.loop.time())
                if room.gone is not None:
                    raise room.gone
                if room.roster is None:
                    await self.roster(code, whole=False)
            return room
        finally:
            self.waiting -= 1
            room.waiting -= 1

    async def _watch(self, code: str, room: Watched) -> None:
        """While anyone waits on the room: look every CHECK seconds, or at once when poked."""
        while room.waiting > 0 and room.gone is None:
            with suppress(TimeoutError):
                await asyncio.wait_for(room.poked.wait(), self.check)
            room.poked.clear()
            try:
                await self._look(code, room, whole=False)  # the counters; a roster if moved
            except (NotFound, Unavailable):
                continue  # gone: the waiters were woken; away: look again
            except Exception:  # never let one room's watcher die silently
                log.exception("watching room %s", code)
                await asyncio.sleep(CHECK)


def _version(roster: Roster | None) -> int | None:
    return None if roster is None else roster.view.version
