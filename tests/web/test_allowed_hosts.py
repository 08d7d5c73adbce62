"""A change to a room must come from a page on an address the server answers as, not merely from the Host it was sent.

A page on another site whose name now points at the teacher's laptop (DNS rebinding) sends an Origin
and a Host that agree with each other; only the server's own list (ALLOWED_HOSTS, from the addresses
it binds and --allowed-hosts: webapp/web/serving/hosts.py) tells them apart.
"""

from __future__ import annotations

import doctest

import pytest

from webapp.__main__ import build_parser
from webapp.web import create_app
from webapp.web.serving import hosts

SERVED = ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "192.168.1.20:8000", "teacher.local")


@pytest.fixture(scope="module")
def served(app, tmp_path_factory):
    """The app as `python -m webapp --host 0.0.0.0 --allowed-hosts teacher.local` builds it, behind no proxy."""
    store = f"sqlite:///{tmp_path_factory.mktemp('rooms') / 'rooms.sqlite3'}"
    return create_app({"TESTING": True, "MODELS": app.extensions["models"], "ROOM_STORE": store,
                       "ALLOWED_HOSTS": SERVED, "TRUSTED_PROXY": "10.0.0.1"})


def start(app, host: str, origin: str, remote: str = "192.168.1.30"):
    return app.test_client().post("/room", data={"from": "/?prompt=The+girl"}, headers={"Host": host, "Origin": origin},
                                  environ_overrides={"REMOTE_ADDR": remote})


@pytest.mark.parametrize("address", ["127.0.0.1:8000", "localhost:8000", "192.168.1.20:8000", "teacher.local:8000",
                                     "teacher.local", "[::1]:8000"])
def test_a_page_on_an_address_the_server_answers_as_may_start_a_room(served, address):
    assert start(served, address, f"http://{address}").status_code == 303


@pytest.mark.parametrize(("host", "origin"), [
    ("evil.example:8000", "http://evil.example:8000"),  # rebound: the Host agrees with the Origin
    ("127.0.0.1:8000", "http://127.0.0.1:8001"),  # another port of this machine: another site
    ("192.168.1.20:8000", "http://192.168.1.20"),  # port 80, not 8000
    ("127.0.0.1:8000", "http://localhost:99999"),  # no port at all
    ("127.0.0.1:8000", "http://[::1"),
])
def test_a_page_on_any_other_address_may_not(served, host, origin):
    answer = start(served, host, origin)
    assert answer.status_code == 403
    assert "must come from a page of this site" in answer.get_data(as_text=True)


def test_a_referer_counts_where_there_is_no_origin(served):
    client = served.test_client()
    page = {"Host": "192.168.1.20:8000", "Referer": "http://192.168.1.20:8000/?prompt=x"}
    assert client.post("/room", data={"from": "/"}, headers=page).status_code == 303
    rebound = {"Host": "evil.example:8000", "Referer": "http://evil.example:8000/"}
    assert client.post("/room", data={"from": "/"}, headers=rebound).status_code == 403


def test_behind_the_trusted_proxy_the_name_it_was_asked_for_counts(served):
    """The server cannot know a proxy's public name; a request the proxy forwards may come from it."""
    assert start(served, "class.school.example", "https://class.school.example", remote="10.0.0.1").status_code == 303
    assert start(served, "class.school.example", "https://class.school.example").status_code == 403, "not via it"


def test_an_app_without_the_server_s_list_allows_this_machine_only(app):
    client = app.test_client()
    assert client.post("/room", data={"from": "/"}, headers={"Origin": "http://localhost"}).status_code == 303
    assert client.post("/room", data={"from": "/"}, headers={"Origin": "http://127.0.0.1:5000"}).status_code == 303
    rebound = {"Host": "evil.example", "Origin": "http://evil.example"}
    assert client.post("/room", data={"from": "/"}, headers=rebound).status_code == 403


def test_the_server_answers_as_its_own_names_the_host_it_binds_and_the_lan_address():
    assert hosts.served_hosts("0.0.0.0", 8000, "192.168.1.20", ["teacher.local"]) == SERVED
    assert hosts.served_hosts("10.1.2.3", 80, None) == ("127.0.0.1:80", "localhost:80", "[::1]:80", "10.1.2.3:80")
    assert hosts.names_allowed("http://10.1.2.3", hosts.served_hosts("10.1.2.3", 80, None)), "port 80 unwritten"


def test_allowed_hosts_on_the_command_line_are_checked():
    args = build_parser().parse_args(["--allowed-hosts", "Teacher.local:8000, class.example", "serve"])
    assert args.allowed_hosts == ("teacher.local:8000", "class.example")
    for bad in ("a b", "a:b", "user@a", "a/b", "::1", "a:99999"):
        with pytest.raises(ValueError):
            hosts.parse_hosts(bad)


def test_the_worked_examples_hold():
    assert doctest.testmod(hosts).failed == 0
