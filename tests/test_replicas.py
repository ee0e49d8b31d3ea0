"""Several servers: the deploy/ recipe's topology, run without Docker.

nginx from the system runs deploy/nginx.conf (rendered with the test's replicas and port) in
front of two ``streamlit run`` replicas, which share the machine's PostgreSQL through a proxy a
test can cut. The phones speak the class's JSON API (``ui.phone``: ``/api/rooms/CODE/…``, a
long-poll for the room's state) through nginx, each with its token and an affinity cookie of its
own (``bench.replicas.Phone``); each projector is a Streamlit session (over its websocket, or a
Chromium window). Small sizes, so that the file runs in about a minute; the full class is
``python -m bench.replicas`` (docs/operations.md, "Several servers (deploy/)").
"""

import difflib
import http.client
import re
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

import pytest
import replica_support
from conftest import ROOT
from replica_support import read_compose, revived_afterwards, start_class, windows_on

from bench.pg import count_rows
from bench.replicas import (
    COMPOSE,
    COOKIE,
    NGINX_CONF,
    REPLICA_ENV,
    Phone,
    Tab,
    answered_count,
    answers_in_db,
    get,
    lead,
    lost_answers,
    nginx_command,
    render_nginx_conf,
    says,
    wait_for,
)
from ui.phone.hub import WAIT

pytestmark = pytest.mark.slow  # starts replicas, nginx and proxies

QUICK = 2.5  # s: no reply may take longer while the database is away (the store's limit is ~2 s)
QUESTION = "article_why_scale"  # a choice of four: A, B, C, D


@pytest.fixture(scope="module")
def cluster():
    """nginx, two replicas and the database proxy, shared by the tests of this file."""
    with replica_support.cluster(replicas=2) as running:
        yield running


def phones_in(cluster, room, count):
    """``count`` phones on ``room``, each keeping the affinity cookie nginx gives it."""
    return [Phone(cluster.base, room.code) for _ in range(count)]


def phones_on(cluster, room, replicas):
    """A phone on ``room`` per entry of ``replicas``, each with an affinity cookie of its own that
    nginx sends to that replica."""
    cookies = {r: iter(cluster.topology.cookies_for(r, replicas.count(r))) for r in set(replicas)}
    return [Phone(cluster.base, room.code, next(cookies[r])) for r in replicas]


def holding(cluster, code, secret, replica):
    """A client of room ``code``'s API that shows ``secret`` (a student's token, a teacher's
    key) as its Bearer token, sent to ``replica``."""
    client = Phone(cluster.base, code, cluster.topology.cookie_for(replica))
    client.token = secret
    return client


def tap_until_saved(phone, choice, seconds):
    """What a student told "not saved yet" does: tap option ``choice`` of the question the phone
    shows again after Retry-After (1 s when the reply gave none: no answer at all, nginx's 502)
    until it is saved or refused (4xx); the last reply."""
    deadline = time.monotonic() + seconds
    while True:
        reply = phone.answer(choice)
        if reply.ok or 400 <= reply.status < 500 or time.monotonic() > deadline:
            return reply
        time.sleep(reply.retry_after or 1.0)


def read_until_answered(phone, seconds):
    """Read the room (GET …/state) after each Retry-After until the API answers 200."""
    deadline = time.monotonic() + seconds
    while True:
        reply = phone.look()
        if reply.ok or time.monotonic() > deadline:
            return reply
        time.sleep(reply.retry_after or 1.0)


def requests_of(cluster, phone):
    """nginx's log of this phone's API requests to its room: (replica that answered, status)."""
    prefix = f"/api/rooms/{phone.code}/"
    topology = cluster.topology
    return [
        (topology.replica_of(e.upstream), e.status)
        for e in topology.nginx.log()
        if e.affinity == phone.cookie and e.uri.startswith(prefix)
    ]


# --- the recipe ---------------------------------------------------------------------------------


def test_the_test_topology_runs_the_deploy_nginx_conf(cluster):
    """One nginx.conf: the running nginx's file is deploy/nginx.conf with only its two lines
    marked "rendered" changed, and rendering it with Compose's values gives it back."""
    topology = cluster.topology
    deployed = NGINX_CONF.read_text()
    running = topology.nginx.conf.read_text()
    addresses = [replica.address for replica in topology.replicas]
    assert running == render_nginx_conf(deployed, addresses, f"127.0.0.1:{topology.nginx.port}")
    assert render_nginx_conf(deployed, ["app:8501"], "80") == deployed
    changed = [
        line
        for line in difflib.ndiff(deployed.splitlines(), running.splitlines())
        if line.startswith(("- ", "+ "))
    ]
    assert len(changed) == 2 + len(addresses) + 1, changed  # server → 2 servers, listen
    assert all("rendered" in line for line in changed), changed
    assert (
        topology.nginx.process.args[-6:] == nginx_command(topology.folder, topology.nginx.conf)[-6:]
    )
    for needed in (
        "proxy_http_version 1.1;",
        "proxy_set_header Upgrade $http_upgrade;",
        "proxy_set_header Connection $connection_upgrade;",
        "proxy_read_timeout 12h;",
        "hash $lab_affinity consistent;",
    ):
        assert needed in deployed, needed


def test_nginx_sets_the_affinity_cookie_once_and_keeps_a_browser_on_one_replica(cluster):
    _, first = get(cluster.base + "/classroom")
    assert first, "a first visit gets the affinity cookie"
    _, again = get(cluster.base + "/classroom", cookie=first)
    assert again is None, "a browser that has the cookie is not given another"
    for _ in range(5):
        get(cluster.base + "/_stcore/health", cookie=first)
    served = {e.upstream for e in cluster.topology.nginx.log() if e.affinity == first}
    assert len(served) == 1, served


def nginx_setting(conf, path, name):
    """The value of directive ``name`` that applies to a request for ``path``: set in the
    location nginx picks (the longest prefix: the file has prefix locations only), else outside
    every location, else nginx's default (60s for the proxy timeouts)."""
    locations = re.findall(r"location\s+(\S+)\s*\{([^}]*)\}", conf)
    _, body = max(((p, b) for p, b in locations if path.startswith(p)), key=lambda pb: len(pb[0]))
    outside = re.sub(r"location\s+\S+\s*\{[^}]*\}", "", conf)
    for text in (body, outside):
        found = re.search(rf"^\s*{name}\s+([^;]+);", text, re.M)
        if found:
            return found.group(1).strip()
    return "60s"


def nginx_seconds(value):
    """An nginx time ("60s", "12h", "1m", "30") in seconds."""
    number, unit = re.fullmatch(r"(\d+)(ms|s|m|h|d)?", value).groups()
    return int(number) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}[unit or "s"]


def test_nginx_lets_a_phone_s_long_poll_wait_its_whole_wait(cluster):
    """The API holds a phone's GET …/state?since=V up to WAIT (25 s) while the room stands still:
    deploy/nginx.conf gives /api/ a proxy_read_timeout of WAIT + 5 s or more, so a quiet room's
    poll comes back 200 with the same version after its whole wait (never nginx's 504), and a
    room that moves answers a waiting poll at once, through nginx's buffers."""
    conf = NGINX_CONF.read_text()
    timeout = nginx_setting(conf, "/api/rooms/ABC123/state", "proxy_read_timeout")
    assert nginx_seconds(timeout) >= WAIT + 5, timeout
    store = cluster.store
    still, moves = store.create_room(), store.create_room()
    quiet, moving = phones_in(cluster, still, 1) + phones_in(cluster, moves, 1)
    with ThreadPoolExecutor(2) as pool:
        for phone in (quiet, moving):
            phone.join().look()
        before = quiet.state["version"]
        held = pool.submit(quiet.look, before)
        woken = pool.submit(moving.look, moving.state["version"])
        time.sleep(1)  # both waiting
        asked_at = time.monotonic()
        store.ask(moves.code, moves.teacher_key, QUESTION)
        moved = woken.result()
        assert moved.status == 200 and moved.body["number"] == 1, moved
        assert moved.started + moved.seconds - asked_at < 2, moved
        reply = held.result()
    assert reply.status == 200 and WAIT - 1 < reply.seconds < WAIT + 5, reply
    assert reply.body["version"] == before == store.room(still.code).version


def test_compose_builds_the_app_and_points_every_replica_at_postgres():
    compose = read_compose(COMPOSE)
    services = compose["services"]
    apps = {name: service for name, service in services.items() if "build" in service}
    assert apps, "no service is built from the repository"
    for name, service in apps.items():
        build = service["build"]
        assert (COMPOSE.parent / build["context"]).resolve() == ROOT, name
        assert build.get("dockerfile", "Dockerfile") == "Dockerfile"
        assert (ROOT / "Dockerfile").is_file()
        environment = service["environment"]
        if isinstance(environment, list):
            environment = dict(item.split("=", 1) for item in environment)
        url = environment["CLASSROOM_DB_URL"]
        assert url.startswith("postgresql+psycopg://"), url
        host = re.search(r"@([^:/]+)[:/]", url).group(1)
        assert services[host]["image"].startswith("postgres"), host
        assert "ports" not in service, "a replica is reached through nginx only"
        assert "container_name" not in service, "a named container cannot be scaled"
        assert REPLICA_ENV.items() <= environment.items(), "the test replicas run as deployed"
    database = services[host]
    volume = database["volumes"][0].split(":")[0]
    assert volume in compose["volumes"], "PostgreSQL keeps its data in a named volume"
    nginx = services["nginx"]
    mount = next(v for v in nginx["volumes"] if v.startswith("./nginx.conf:"))
    command = nginx["command"]
    assert command[command.index("-c") + 1] == mount.split(":")[1]
    ours = nginx_command(ROOT, ROOT / "nginx.conf")
    assert [command[0], command[1], command[2], command[3], command[5], command[7]] == [
        "nginx", *ours[1:4], ours[5], ours[7]
    ]  # fmt: skip
    assert command[-1] == ours[-1] == "daemon off;"


# --- a class on two replicas --------------------------------------------------------------------


def test_two_rooms_of_phones_through_nginx_lose_no_answer(cluster):
    """2 rooms × 6 phones, half of each room's on each replica, and each room's projector on a
    replica of its own, so that every count crosses replicas. The phones long-poll; the teacher
    asks from outside both replicas (each replica's hub must hear of it from the database):
    every phone hears each of 2 questions within 5 s and answers it; every acknowledged answer
    is in the database, each projector counts every answer, each phone stays on the replica its
    cookie names, and no token reaches nginx's log."""
    topology = cluster.topology
    rooms = [cluster.store.create_room() for _ in range(2)]
    phones = {room.code: phones_on(cluster, room, [0, 1] * 3) for room in rooms}
    homes = {phone: i % 2 for room_phones in phones.values() for i, phone in enumerate(room_phones)}
    projectors = {
        room.code: Tab(
            cluster.base, f"room={room.code}&key={room.teacher_key}&lang=en", topology.cookie_for(i)
        )
        for i, room in enumerate(rooms)
    }
    everyone = list(homes)
    try:
        with ThreadPoolExecutor(len(everyone)) as pool:
            list(pool.map(Phone.join, everyone))
            for tab in projectors.values():
                tab.open()
            for number, question in enumerate(("lab_top_key", QUESTION), 1):
                hearing = [pool.submit(phone.wait_question, number, 20) for phone in everyone]
                time.sleep(1)  # every phone waiting in its long-poll
                asked_at = {}
                for room in rooms:  # the teacher asks; the projector's page runs again
                    asked_at[room.code] = time.monotonic()
                    cluster.store.ask(room.code, room.teacher_key, question)
                    projectors[room.code].run()
                assert all(f.result() for f in hearing), [phone.state for phone in everyone]
                heard = [p.seen_at[number] - asked_at[p.code] for p in everyone]
                assert max(heard) < 5, heard
                replies = list(pool.map(Phone.answer, everyone, range(len(everyone))))
                assert all(reply.status == 200 for reply in replies), replies
                for tab in projectors.values():
                    assert wait_for(tab, lambda tab=tab: answered_count(tab) == 6, 10), tab.texts()
    finally:
        for tab in projectors.values():
            tab.close()
    assert lost_answers(phones, cluster.db_url) == []
    held = answers_in_db(cluster.db_url)
    assert sum(1 for code, _, _ in held if code in phones) == 2 * 6 * 2
    assert not [f for tab in projectors.values() for f in tab.failures]
    for phone, home in homes.items():  # affinity: every request of a phone on its one replica
        served = requests_of(cluster, phone)
        assert len(served) >= 5 and {replica for replica, _ in served} == {home}, served
    logged = topology.nginx.access.read_text()
    assert not [phone.name for phone in everyone if phone.token in logged]


def test_a_room_token_or_teacher_key_does_nothing_in_another_room(cluster):
    """Room A's student token and teacher key used on room B's API, through either replica: the
    token reads, answers and renames nothing in B (404 not_in_class) and counts nothing (403);
    the key counts nothing in B (403), and B's projector link with it does not teach; both work
    in A. B is untouched: no student, no answer, the same version."""
    store = cluster.store
    room_a, room_b = store.create_room(), store.create_room()
    store.ask(
        room_b.code, room_b.teacher_key, QUESTION
    )  # B takes answers: a stolen one would count
    before = store.room(room_b.code).version
    for replica in range(2):
        cookie = cluster.topology.cookie_for(replica)
        student = Phone(cluster.base, room_a.code, cookie).join()
        assert student.look().status == 200, f"the token works in its own room (replica {replica})"
        teacher = holding(cluster, room_a.code, room_a.teacher_key, replica)
        assert teacher.call("GET", "count").status == 200, "the key counts its own room"
        stolen = holding(cluster, room_b.code, student.token, replica)
        for reply in (
            stolen.call("GET", "state"),
            stolen.call("GET", f"state?since={before}"),
            stolen.call("POST", "answers", {"value": "A"}),
            stolen.call("POST", "answers", {"value": "A", "number": 1}),
            stolen.call("POST", "nickname", {"nickname": "Intruder"}),
        ):
            assert (reply.status, reply.error) == (404, "not_in_class"), reply
        assert stolen.call("GET", "count").status == 403
        wrong_key = holding(cluster, room_b.code, room_a.teacher_key, replica)
        reply = wrong_key.call("GET", "count")
        assert (reply.status, reply.error) == (403, "not_teacher"), reply
        projector = Tab(
            cluster.base, f"room={room_b.code}&key={room_a.teacher_key}&lang=en", cookie
        )
        projector.open()
        assert says(projector, "cl_bad_key", "warning"), projector.texts()
        assert "classroom_ask" not in projector.widget_keys() and "key=" not in projector.query
        assert not projector.failures
        projector.close()
    with pytest.raises(LookupError):
        store.answer(room_b.code, student.token, "A")
    with pytest.raises(PermissionError):
        store.ask(room_b.code, room_a.teacher_key, "lab_top_key")
    assert store.room(room_b.code).version == before
    query = "SELECT count(*) FROM students s JOIN rooms r ON r.id = s.room_id WHERE r.code = :c"
    assert count_rows(cluster.db_url, query, c=room_b.code) == 0
    assert not [key for key in answers_in_db(cluster.db_url) if key[0] == room_b.code]


# --- losing the database for 10 s ---------------------------------------------------------------


def keep_answering(phone, until):
    """Tap an answer again after each reply's Retry-After (1 s without one) until ``until``:
    what a student told "not saved yet" does. The replies."""
    replies = []
    while time.monotonic() < until:
        replies.append(phone.answer(3))
        time.sleep(replies[-1].retry_after or 1.0)
    return replies


def keep_reading(phone, until):
    """Read the room (GET …/state, a page's reload) after each Retry-After until ``until``."""
    replies = []
    while time.monotonic() < until:
        replies.append(phone.look())
        time.sleep(replies[-1].retry_after or 1.0)
    return replies


def told_unavailable(reply):
    """A 503 "unavailable" that says when to try again, within QUICK s."""
    return (
        reply.status == 503
        and reply.error == "unavailable"
        and reply.retry_after is not None
        and reply.seconds < QUICK
    )


def test_the_database_away_for_ten_seconds_loses_nothing_and_comes_back(cluster):
    """The proxy to PostgreSQL is cut mid-question for 10 s while phones keep answering and
    reading the room: each is told 503 "unavailable" with Retry-After within ~2 s, no answer
    sent meanwhile is acknowledged, the projector's runs stay under ~2 s; nothing acknowledged
    before is lost, and once the database is back each phone's next try is saved and the
    projector counts it, without a restart."""
    store = cluster.store
    room = store.create_room()
    phones = phones_in(cluster, room, 4)
    projector = Tab(cluster.base, f"room={room.code}&key={room.teacher_key}&lang=en")
    busy, idle = phones[:2], phones[2:]  # who answers during the outage, who reads the room
    try:
        with ThreadPoolExecutor(len(phones)) as pool:
            list(pool.map(Phone.join, phones))
            projector.open()
            store.ask(room.code, room.teacher_key, QUESTION)
            projector.run()
            assert all(pool.map(lambda phone: phone.wait_question(1), phones))
            assert all(pool.map(lambda phone: phone.answer(0).ok, phones))
            cluster.proxy.cut()
            until = time.monotonic() + 10
            answering = [pool.submit(keep_answering, phone, until) for phone in busy]
            reading = [pool.submit(keep_reading, phone, until) for phone in idle]
            while time.monotonic() < until:
                projector.tick()
                time.sleep(0.5)
            answered = [reply for future in answering for reply in future.result()]
            read = [future.result() for future in reading]
            runs = projector.runs[-3:]
            assert answered and all(map(told_unavailable, answered)), answered
            for replies in read:  # a roster read within 0.25 s before the cut may still serve
                assert all(r.status == 200 or told_unavailable(r) for r in replies), replies
                assert any(map(told_unavailable, replies)), replies
            assert max(runs) < QUICK, f"a run took {max(runs):.1f} s with the database away"
            assert says(projector, "refusal_unavailable"), projector.texts()
            cluster.proxy.restore()
            back_at = time.monotonic()
            saved = list(pool.map(lambda phone: tap_until_saved(phone, 1, 20), phones))
            recovered = [p.acked_at[1] - back_at for p in phones if p.acked.get(1) == "B"]
            print(
                f"outage: {len(answered)} answers told 503, slowest reply "
                f"{max(r.seconds for r in answered):.2f} s, projector's slowest run "
                f"{max(runs):.2f} s; saved again {[round(s, 1) for s in recovered]} s after"
            )
        assert all(reply.status == 200 for reply in saved), saved
        assert wait_for(projector, lambda: answered_count(projector) == 4, 10), projector.texts()
    finally:
        cluster.proxy.restore()
        projector.close()
    assert cluster.proxy.refused > 0, "the replicas did try the database while it was away"
    assert lost_answers({room.code: phones}, cluster.db_url) == []
    held = answers_in_db(cluster.db_url)
    for phone in phones:
        assert held[(room.code, phone.name, 1)] == phone.acked[1] == "B"
    assert not projector.failures


def test_a_phone_told_not_saved_gets_its_question_back_by_itself(cluster):
    """A phone long-polls the room (as its page's script does) while the database goes away: its
    tap is told 503 "unavailable" (Retry-After); its poll is held, or told 503 and sent again,
    never dropped. Once the database is back, with no reload and no restart, reading the room
    after Retry-After gives its question back (still open, no answer of its own) within 8 s, its
    tap is saved, and its long-poll, which went on by itself, hears the teacher close the
    question."""
    store = cluster.store
    room = store.create_room()
    phone = phones_in(cluster, room, 1)[0]
    with ThreadPoolExecutor(1) as pool:
        phone.join()
        store.ask(room.code, room.teacher_key, QUESTION)
        assert phone.wait_question(1)
        hearing = pool.submit(phone.listen, lambda state: state.get("phase") == "closed", 60)
        try:
            cluster.proxy.cut()
            cut_at = time.monotonic()
            told = phone.answer(0)
            assert told_unavailable(told), told
            time.sleep(3)  # its long-poll meets the database away
        finally:
            cluster.proxy.restore()
        back_at = time.monotonic()
        polls = [r for r in phone.replies if r.what.startswith("GET state?") and r.started > cut_at]
        assert all(map(told_unavailable, polls)), polls
        again = read_until_answered(phone, 8)
        assert again.ok and time.monotonic() - back_at < 8, again
        assert phone.question(again.body) == 1 and again.body["me"]["answer"] is None, again
        assert tap_until_saved(phone, 2, 8).ok, phone.replies[-1]
        store.close(room.code, room.teacher_key)
        closed_at = time.monotonic()
        assert hearing.result(timeout=15), phone.replies[-3:]
    heard = phone.replies[-1]
    after = heard.started + heard.seconds - closed_at
    print(f"its polls told 503 {len(polls)} times away; the close heard {after:.2f} s after")
    assert heard.what.startswith("GET state?") and heard.body["phase"] == "closed", heard
    assert answers_in_db(cluster.db_url)[(room.code, phone.name, 1)] == phone.acked[1] == "C"


def post_form(phone, form):
    """The light phone page's own form (POST /join/CODE) sent by ``phone``'s browser: its
    affinity and class cookies, no script; the status and the page it gets back."""
    cookies = f"{COOKIE}={phone.cookie}; phone_{phone.code}={phone.token}"
    connection = http.client.HTTPConnection(phone.host, phone.port, timeout=10)
    try:
        connection.request(
            "POST",
            f"/join/{phone.code}?lang=en",
            urlencode(form),
            {"Cookie": cookies, "Content-Type": "application/x-www-form-urlencoded"},
        )
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def test_the_phone_page_told_not_saved_comes_back_by_itself(cluster):
    """The light page's answer form meets the database away: the page says "not saved yet"
    (503) and still polls by itself (its live part on, data-live="yes", for phone.js), so that
    it draws the question again once the database is back, as the class page's ``recover`` did
    for the Streamlit page."""
    store = cluster.store
    room = store.create_room()
    phone = phones_in(cluster, room, 1)[0].join()
    store.ask(room.code, room.teacher_key, QUESTION)
    assert phone.wait_question(1)
    try:
        cluster.proxy.cut()
        time.sleep(0.5)  # the hub's roster is no longer fresh
        status, page = post_form(phone, {"do": "answer", "number": "1", "value": "A"})
    finally:
        cluster.proxy.restore()
    assert status == 503 and lead("ph_not_saved", "en").strip() in page, page
    live = re.search(r'<main id="live"[^>]*data-live="(\w+)"', page)
    assert live and live.group(1) == "yes", live and live.group(0)


# --- losing a replica mid-question ----------------------------------------------------------------


def test_a_replica_dies_mid_question_and_its_phones_carry_on(cluster):
    """Six phones long-poll the class, four of them on the replica that is killed (SIGKILL of its
    process group) while two of those send a new answer, and the teacher asks the next question
    at that moment. Retrying as the phone page does, every phone goes on through nginx on the
    other replica as the same student (its token, its nickname): no acknowledged answer is lost
    (a cut answer is tapped again, on the question the phone then shows), each phone hears the
    next question within 5 s, and answers it."""
    victim, survivor = 0, 1
    store = cluster.store
    room = store.create_room()
    phones = phones_on(cluster, room, [victim] * 4 + [survivor] * 2)
    on_victim, changing = phones[:4], phones[:2]
    with revived_afterwards(cluster, victim), ThreadPoolExecutor(2 * len(phones)) as pool:
        list(pool.map(Phone.join, phones))
        store.ask(room.code, room.teacher_key, QUESTION)
        assert all(pool.map(lambda phone: phone.wait_question(1), phones))
        assert all(pool.map(lambda phone: phone.answer(0).ok, phones))
        hearing = [pool.submit(phone.wait_question, 2, 30) for phone in phones]
        time.sleep(1)  # every phone in its long-poll
        tapped = [pool.submit(tap_until_saved, phone, 1, 15) for phone in changing]
        cluster.topology.replicas[victim].kill()  # mid-answer, the replica dies …
        asked_at = time.monotonic()
        store.ask(room.code, room.teacher_key, "lab_top_key")  # … as the teacher asks on
        assert all(future.result() for future in hearing), [p.replies[-3:] for p in phones]
        heard = [phone.seen_at[2] - asked_at for phone in phones]
        assert max(heard) < 5, heard
        for reply in (future.result() for future in tapped):  # saved, or refused as too late
            assert reply.ok or (reply.status, reply.error) == (409, "moved_on"), reply
        for phone in phones:  # the same students, still in the class
            assert phone.state["me"]["nickname"] == phone.name
        assert all(pool.map(lambda phone: phone.answer(2).ok, phones))
    assert lost_answers({room.code: phones}, cluster.db_url) == []
    held = answers_in_db(cluster.db_url)
    sent = [[r.status for r in p.replies if r.what == "POST answers"][1:-1] for p in changing]
    print(
        f"killed mid-answer: the new answers got {sent}, question 1 holds "
        f"{[held[(room.code, p.name, 1)] for p in changing]}; the next question heard in "
        f"{[round(h, 2) for h in heard]} s"
    )
    assert [held[(room.code, phone.name, 1)] for phone in phones[2:]] == ["A"] * 4
    assert all(held[(room.code, phone.name, 2)] == phone.acked[2] for phone in phones)
    for phone in on_victim:  # nginx sent them to the survivor once their replica died
        served = requests_of(cluster, phone)
        assert served[-1] == (survivor, 200), served


def test_a_late_tap_never_answers_the_next_question(cluster):
    """A phone changes its answer to question 1 within the pace (0.5 s) of its first, and the
    teacher asks question 2 (choices A to D as well) meanwhile: the tap, sent with number 1, is
    counted for question 1 or refused (409 moved_on), never counted for question 2."""
    store = cluster.store
    room = store.create_room()
    phone = phones_in(cluster, room, 1)[0].join()
    store.ask(room.code, room.teacher_key, QUESTION)
    assert phone.wait_question(1)
    assert phone.answer(0).ok
    with ThreadPoolExecutor(1) as pool:
        tapped = pool.submit(phone.answer, 1)  # "B" for question 1, within the pace …
        time.sleep(0.25)  # … checked at once, then held until 0.5 s after the first
        store.ask(room.code, room.teacher_key, "article_softmax_ops")  # A, B, C, D too; quick
        reply = tapped.result()
    held = answers_in_db(cluster.db_url)
    assert (room.code, phone.name, 2) not in held, (reply, held)
    assert reply.ok or (reply.status, reply.error) == (409, "moved_on"), reply


@pytest.mark.browser
def test_the_teacher_s_projector_teaches_on_after_its_replica_dies(cluster):
    """The projector's replica is killed mid-question: Chromium reconnects it through nginx to
    the other replica as a new session, which meets the class's link; the tab hands back the
    key it kept (sessionStorage), so the projector teaches on: the same question, its count,
    and its buttons. A phone on the other replica answers through the API meanwhile."""
    victim, survivor = 0, 1
    with windows_on(cluster, victim) as open_window:
        teacher = open_window(victim)
        code = start_class(teacher)
        phone = Phone(cluster.base, code, cluster.topology.cookies_for(survivor, 1)[0]).join()
        teacher.page.locator(".st-key-classroom_ask button").click()
        teacher.text("h2", "Answered 0 of 1", 15)
        assert phone.wait_question(1, 15), phone.state
        before = len(teacher.sockets)
        cluster.topology.replicas[victim].kill()
        teacher.wait_reconnected(before, seconds=45)
        assert phone.answer(0).ok, phone.replies[-1]
        assert teacher.text("h2", "Answered 1 of 1", 30)  # the teacher's view, counting
        assert teacher.page.locator(".st-key-classroom_join").count() == 0
        assert teacher.page.locator("[data-testid=stException]").count() == 0
