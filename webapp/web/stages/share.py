"""The share panel: this screen for the class (a QR code and a link), its downloads, a lesson, and a class room.

Students scan the QR code or open the link and see this exact screen. When the teacher's page is
served at 127.0.0.1 no phone can open either, and the panel says so, with the command that serves the
room's network and the address students would then type (url/share.py decides who can reach what).
The link's address and the downloads' are written here; the template only places them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..url.links import lesson_add_url, share_url, state_links
from ..url.share import reach
from .screen import Screen


@dataclass(frozen=True)
class SharePanel:
    """The QR code, whether phones can open its link, the link, the downloads, the lesson's and the room's way in."""

    qr_code: str  # the QR code's image of this screen's link
    loopback: bool  # only this computer can open the link: the panel warns, with what to do
    command_words: tuple[str, ...]  # the command that serves the room's network, word by word
    address: str | None  # what students type: 'http://192.168.1.20:8000/'; None if there is no network address
    link: str  # this screen's link for students
    export_json: str  # every step, as JSON
    export_run_csv: str  # one line per token
    export_csv: str  # the table on screen
    export_chain_csv: str  # the sampler chain of the step on screen
    add_to_lesson: str  # the lesson editor, adding this screen to the lesson being written
    decode: str  # greedy and beam search from this screen's prompt, beside its sampled text
    room_from: str  # the screen a class room starts from


def present(screen: Screen) -> SharePanel:
    """The share panel of the screen, as the request's address lets phones reach it."""
    link, who = state_links(screen.state), reach()
    return SharePanel(
        qr_code=link("stepper.qr_code"),
        loopback=who.loopback,
        command_words=tuple(who.command.split()),
        address=who.address,
        link=share_url(screen.state),
        export_json=link("stepper.export_json"),
        export_run_csv=link("stepper.export_run_csv"),
        export_csv=link("stepper.export_csv"),
        export_chain_csv=link("stepper.export_chain_csv"),
        add_to_lesson=lesson_add_url(screen.state),
        decode=link("decode.decode_page"),
        room_from=link("stepper.show"),
    )
