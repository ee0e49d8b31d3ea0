"""Several servers: the deploy/ recipe's topology, run without Docker.

nginx from the system runs deploy/nginx.conf (rendered with the test's replicas and port) in
front of two ``streamlit run`` replicas, which share the machine's PostgreSQL through a proxy a
test can cut. Small sizes, so that the file runs in well under two minutes; the full class is
``python -m bench.replicas`` (docs/operations.md, "Several servers (deploy/)").
"""

import difflib
import re
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import replica_support
from conftest import ROOT
from replica_support import join_class, read_compose, start_class, windows_on

from bench.pg import count_rows
from bench.replicas import (
    COMPOSE,
    NGINX_CONF,
    REPLICA_ENV,
    Phone,
    Tab,
    answered_count,
    answers_in_db,
    get,
    lost_answers,
    nginx_command,
    picks,
    render_nginx_conf,
    says,
    wait_for,
)

pytestmark = pytest.mark.slow  # starts replicas, nginx and proxies

QUICK = 2.5  # s: no run may take longer while the database is away (the store's limit is ~2 s)


@pytest.fixture(scope="module")
def cluster():
    """nginx, two replicas and the database proxy, shared by the tests of this file."""
    with replica_support.cluster(replicas=2) as running:
        yield running


def tabs_in(base, room, count):
    """``count`` phones on the join link of ``room``, each with the cookie nginx gives it."""
    return [Phone(Tab(base, f"room={room.code}&lang=en")) for _ in range(count)]


def open_and_join(phone):
    phone.tab.open()
    return phone.join()


def close_all(tabs):
    for tab in tabs:
        tab.close()


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
    """2 rooms × 5 phones join and answer 2 questions through nginx, on both replicas; every
    acknowledged answer is in the database, and the projectors count every answer."""
    topology = cluster.topology
    rooms = [cluster.store.create_room() for _ in range(2)]
    phones = {room.code: tabs_in(cluster.base, room, 5) for room in rooms}
    projectors = {
        room.code: Tab(
            cluster.base, f"room={room.code}&key={room.teacher_key}&lang=en", topology.cookie_for(i)
        )
        for i, room in enumerate(rooms)
    }  # each room's projector on a replica of its own: the count crosses replicas
    everyone = [phone for room_phones in phones.values() for phone in room_phones]
    try:
        with ThreadPoolExecutor(len(everyone)) as pool:
            list(pool.map(open_and_join, everyone))
            for tab in projectors.values():
                tab.open()
            for number, question in enumerate(("lab_top_key", "article_why_scale"), 1):
                for room in rooms:  # the teacher asks; the projector's page runs again
                    cluster.store.ask(room.code, room.teacher_key, question)
                    projectors[room.code].run()
                seen = list(pool.map(lambda phone, n=number: phone.wait_question(n, 20), everyone))
                assert all(seen), "every phone shows the new question within 20 s"
                acked = list(pool.map(lambda p, i: p.answer(i), everyone, range(len(everyone))))
                assert all(answer is not None for answer in acked), acked
                for tab in projectors.values():
                    assert wait_for(tab, lambda tab=tab: answered_count(tab) == 5, 10), tab.texts()
    finally:
        close_all([phone.tab for phone in everyone] + list(projectors.values()))
    assert lost_answers(phones, cluster.db_url) == []
    held = answers_in_db(cluster.db_url)
    assert sum(1 for code, _, _ in held if code in phones) == 2 * 5 * 2
    assert not [
        f for tab in [p.tab for p in everyone] + list(projectors.values()) for f in tab.failures
    ]
    # nginx logs a websocket when it closes: which replica served each tab, by its cookie
    cookies = {phone.tab.cookie for phone in everyone} | {t.cookie for t in projectors.values()}
    deadline = time.monotonic() + 10
    while True:
        streams = [
            e for e in topology.nginx.log() if e.uri == "/_stcore/stream" and e.affinity in cookies
        ]
        if len(streams) >= len(cookies) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    served = Counter(topology.replica_of(e.upstream) for e in streams)
    assert set(served) == {0, 1}, served
    for cookie in cookies:  # affinity: the page and its websocket on one replica
        upstreams = {e.upstream for e in topology.nginx.log() if e.affinity == cookie}
        assert len(upstreams) == 1, (cookie, upstreams)


def test_a_room_token_or_teacher_key_does_nothing_in_another_room(cluster):
    """Room A's student token and teacher key, used in room B's links, on either replica."""
    store = cluster.store
    room_a, room_b = store.create_room(), store.create_room()
    student = store.join(room_a.code, lang="en")
    before = store.room(room_b.code).version
    for replica in range(2):
        cookie = cluster.topology.cookie_for(replica)
        mine = Tab(cluster.base, f"room={room_a.code}&me={student.token}&lang=en", cookie).open()
        assert says(mine, "cl_you_are"), f"the token works in its own room (replica {replica})"
        stolen = Tab(cluster.base, f"room={room_b.code}&me={student.token}&lang=en", cookie).open()
        assert says(stolen, "refusal_not_in_class", "warning"), stolen.texts()
        assert not says(stolen, "cl_you_are") and "classroom_join" in stolen.widget_keys()
        teacher = Tab(cluster.base, f"room={room_b.code}&key={room_a.teacher_key}&lang=en", cookie)
        teacher.open()
        assert says(teacher, "cl_bad_key", "warning"), teacher.texts()
        assert "classroom_ask" not in teacher.widget_keys() and "key=" not in teacher.query
        for tab in (mine, stolen, teacher):
            assert not tab.failures
            tab.close()
    with pytest.raises(LookupError):
        store.answer(room_b.code, student.token, "A")
    with pytest.raises(PermissionError):
        store.ask(room_b.code, room_a.teacher_key, "lab_top_key")
    assert store.room(room_b.code).version == before
    query = "SELECT count(*) FROM students s JOIN rooms r ON r.id = s.room_id WHERE r.code = :c"
    assert count_rows(cluster.db_url, query, c=room_b.code) == 0


# --- losing the database for 10 s ---------------------------------------------------------------


def outage_tap(phone):
    """During the outage: a reload if the page lost its buttons (what a student does on "try
    again"), then a tap; the seconds of each run, and what the page said."""
    runs = []
    if not picks(phone.tab):
        runs.append(phone.tab.run())
    if picks(phone.tab):
        phone.answer(3)
        runs.append(phone.tab.runs[-1])
    told = says(phone.tab, "refusal_unavailable", "warning")
    return runs, told, says(phone.tab, "cl_received", "success")


def test_the_database_away_for_ten_seconds_loses_nothing_and_comes_back(cluster):
    """The proxy to PostgreSQL is cut mid-question for 10 s while phones keep answering: every
    run ends within ~2 s, an answer sent meanwhile is told "not saved yet", nothing acknowledged
    is lost, and once the database is back the replicas reach it again without a restart."""
    store = cluster.store
    room = store.create_room()
    phones = tabs_in(cluster.base, room, 4)
    projector = Tab(cluster.base, f"room={room.code}&key={room.teacher_key}&lang=en")
    busy, idle = phones[:2], phones[2:]  # who answers during the outage, who only waits
    try:
        with ThreadPoolExecutor(len(phones)) as pool:
            list(pool.map(open_and_join, phones))
            projector.open()
            store.ask(room.code, room.teacher_key, "article_why_scale")
            projector.run()
            assert all(pool.map(lambda phone: phone.wait_question(1), phones))
            assert all(pool.map(lambda phone: phone.answer(0) is not None, phones))
            cluster.proxy.cut()
            cut_at = time.monotonic()
            told, runs = [], []
            while time.monotonic() - cut_at < 10:
                for phone_runs, said, received in pool.map(outage_tap, busy):
                    runs += phone_runs
                    told.append(said and not received)
                for tab in [phone.tab for phone in idle] + [projector]:
                    tab.tick()
                time.sleep(0.5)
            for tab in [phone.tab for phone in idle] + [projector]:
                runs += tab.runs[-3:]
            assert all(told), "every answer sent meanwhile was told it is not saved yet"
            assert max(runs) < QUICK, f"a run took {max(runs):.1f} s with the database away"
            assert says(projector, "refusal_unavailable"), projector.texts()
            cluster.proxy.restore()
            back_at = time.monotonic()

            def answer_when_back(phone):
                while time.monotonic() - back_at < 20:
                    if not picks(phone.tab):
                        phone.tab.run()  # a page told "not saved": the student sends it again
                    if picks(phone.tab) and phone.answer(1) is not None:
                        return time.monotonic() - back_at
                    time.sleep(0.5)
                return None

            recovered = list(pool.map(answer_when_back, phones))
            print(
                f"outage: {len(runs)} runs, slowest {max(runs):.2f} s; acknowledged again "
                f"{[round(r, 1) for r in recovered if r is not None]} s after it was back"
            )
        assert all(seconds is not None for seconds in recovered), recovered
        assert wait_for(projector, lambda: answered_count(projector) == 4, 10), projector.texts()
    finally:
        cluster.proxy.restore()
        close_all([phone.tab for phone in phones] + [projector])
    assert cluster.proxy.refused > 0, "the replicas did try the database while it was away"
    assert lost_answers({room.code: phones}, cluster.db_url) == []
    held = answers_in_db(cluster.db_url)
    for phone in phones:
        assert held[(room.code, phone.name, 1)] == phone.acked[1]
        assert not phone.tab.failures


def test_a_phone_told_not_saved_gets_its_question_back_by_itself(cluster):
    """A phone whose page met the database away ("not saved yet") polls until it answers and
    then draws its question again by itself: no reload, no restart."""
    store = cluster.store
    room = store.create_room()
    phone = tabs_in(cluster.base, room, 1)[0]
    try:
        open_and_join(phone)
        store.ask(room.code, room.teacher_key, "article_why_scale")
        assert phone.wait_question(1)
        cluster.proxy.cut()
        phone.answer(0)
        assert says(phone.tab, "refusal_unavailable", "warning")
        cluster.proxy.restore()
        assert wait_for(phone.tab, lambda: bool(picks(phone.tab)), 8)
    finally:
        cluster.proxy.restore()
        phone.tab.close()


# --- losing a replica mid-question, in real browsers ---------------------------------------------


@pytest.mark.browser
def test_a_replica_dies_mid_question_and_its_phones_carry_on(cluster):
    """A teacher window and three phone windows; two phones are on the replica that is killed
    (SIGKILL) while they answer. Chromium reconnects them through nginx to the other replica:
    the same students (token, nickname), their acknowledged answers still counted."""
    victim, survivor = 0, 1
    with windows_on(cluster, victim) as open_window:
        teacher = open_window(survivor, phone=False)
        code = start_class(teacher)
        phones = [open_window(where) for where in (victim, victim, survivor)]
        names, tokens = zip(*(join_class(phone, code) for phone in phones), strict=True)
        teacher.page.locator(".st-key-classroom_ask button").click()

        def tap(phone, option, wait=True):
            button = phone.page.locator(f".st-key-classroom_pick_1_{option} button")
            button.wait_for(timeout=15_000)
            label = button.inner_text().strip()
            button.click()
            if wait:
                phone.text("p.safe", f"Your answer: {label}")
                phone.page.get_by_text("Received and saved").wait_for(timeout=15_000)
            return label

        first = [tap(phone, 0) for phone in phones]
        sockets = [len(phone.sockets) for phone in phones]
        second = [tap(phone, 1, wait=False) for phone in phones[:2]]  # mid-answer …
        cluster.topology.replicas[victim].kill()  # … the replica dies
        for phone, before in zip(phones[:2], sockets[:2], strict=True):
            phone.wait_reconnected(before)
        held = answers_in_db(cluster.db_url)
        kept = [held[(code, name, 1)] for name in names[:2]]
        print(f"killed mid-answer: sent {second}, kept {kept}, acknowledged before {first[:2]}")
        for i, phone in enumerate(phones):
            shown = phone.text("p.safe", "You are:").split(":", 1)[1].strip()
            assert shown == names[i], "the same student after the reconnection"
            assert re.search(r"me=([^&]+)", phone.page.url).group(1) == tokens[i]
            value = held[(code, names[i], 1)]
            assert value in (first[i], *(second[i : i + 1] if i < 2 else ())), value
            phone.text("p.safe", f"Your answer: {value}")  # what the database holds
            assert phone.page.locator("[data-testid=stException]").count() == 0
        third = [tap(phone, 2) for phone in phones]  # and they answer on
        assert teacher.text("h2", "Answered 3 of 3", 15)
        assert teacher.page.locator("[data-testid=stException]").count() == 0
    held = answers_in_db(cluster.db_url)
    assert [held[(code, name, 1)] for name in names] == third


@pytest.mark.browser
def test_the_teacher_s_projector_teaches_on_after_its_replica_dies(cluster):
    """The projector's replica is killed mid-question: Chromium reconnects it through nginx to
    the other replica as a new session, which meets the class's join link; the tab hands back
    the key it kept (sessionStorage), so the projector teaches on: the same question, its count,
    and its buttons. A phone's tab, which never held the key, stays a student."""
    victim, survivor = 0, 1
    with windows_on(cluster, victim) as open_window:
        teacher = open_window(victim, phone=False)
        phone = open_window(survivor)
        code = start_class(teacher)
        join_class(phone, code)
        teacher.page.locator(".st-key-classroom_ask button").click()
        teacher.text("h2", "Answered 0 of 1", 15)
        before = len(teacher.sockets)
        cluster.topology.replicas[victim].kill()
        teacher.wait_reconnected(before, seconds=45)
        phone.page.locator(".st-key-classroom_pick_1_0 button").click()
        assert teacher.text("h2", "Answered 1 of 1", 30)  # the teacher's view, counting
        assert teacher.page.locator(".st-key-classroom_join").count() == 0
        assert phone.page.locator(".st-key-classroom_ask").count() == 0
        assert teacher.page.locator("[data-testid=stException]").count() == 0
