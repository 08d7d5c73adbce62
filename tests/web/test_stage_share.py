"""The share panel's presenter (webapp/web/stages/share.py), tested directly: whether phones can open the
link and what the panel then says to do, the link itself, and the downloads of this screen."""

from __future__ import annotations

import pytest

from webapp.web.stages import share
from webapp.web.stages.screen import build_screen
from webapp.web.url import share as reach
from webapp.web.url.parse import parse_state

from .markup import query_of
from .seeded import BASE, joined, url

LAN = "192.168.1.20"


def present(app, host: str, **params) -> share.SharePanel:
    """The share panel of the screen with params, asked for by the address `host`."""
    models = app.extensions["models"]
    with app.test_request_context(url("/", **params), base_url=f"http://{host}/"):
        app.preprocess_request()
        return share.present(build_screen(models, parse_state(params, models, app.config["DEFAULT_MODEL"])))


@pytest.mark.parametrize(
    ("host", "command"),
    [("127.0.0.1:8000", ("token-by-token", "--host", "0.0.0.0")),
     ("localhost:8123", ("token-by-token", "--host", "0.0.0.0", "--port", "8123"))],
)
def test_on_this_computers_own_address_the_panel_warns_and_says_what_to_run(app, monkeypatch, host, command):
    monkeypatch.setattr(reach, "lan_address", lambda: LAN)
    panel = present(app, host, **BASE)
    port = host.rpartition(":")[2]
    assert (panel.loopback, panel.command_words, panel.address) == (True, command, f"http://{LAN}:{port}/")


def test_without_a_network_address_the_warning_names_none_to_type(app, monkeypatch):
    monkeypatch.setattr(reach, "lan_address", lambda: None)
    panel = present(app, "127.0.0.1:8000", **BASE)
    assert (panel.loopback, panel.address) == (True, None)


def test_by_a_lan_address_there_is_no_warning_and_students_type_that_address(app, monkeypatch):
    panel = present(app, f"{LAN}:8000", **BASE)
    assert (panel.loopback, panel.address) == (False, f"http://{LAN}:8000/")
    monkeypatch.setitem(app.config, "LAN_URL", f"http://{LAN}:8000")
    served = present(app, "127.0.0.1:8000", **BASE)
    assert (served.loopback, served.address) == (False, f"http://{LAN}:8000/")
    assert served.link.startswith(f"http://{LAN}:8000/?")  # the link itself goes by the LAN address


def test_the_link_opens_this_screen_without_the_guide(app, three):
    panel = present(app, f"{LAN}:8000", **BASE, ids=joined(three), guide="1")
    query = query_of(panel.link)
    assert panel.link.startswith(f"http://{LAN}:8000/?")
    assert (query["ids"], query["guide"], query["lang"]) == (joined(three), "0", "en")


def test_the_qr_code_the_downloads_and_the_room_are_of_this_screen(app, three):
    panel = present(app, f"{LAN}:8000", **BASE, ids=joined(three), at="1")
    places = {
        panel.qr_code: "/qr.svg",
        panel.export_json: "/export.json",
        panel.export_run_csv: "/export-run.csv",
        panel.export_csv: "/export.csv",
        panel.export_chain_csv: "/export-chain.csv",
        panel.room_from: "/",
    }
    for address, path in places.items():
        assert address.partition("?")[0] == path
        assert (query_of(address)["ids"], query_of(address)["at"]) == (joined(three), "1")
