"""The screen's panels for its templates: each stage's view, presented once, when a template asks for it.

A template that shows a stage is handed that stage's view and nothing else:

    {% with panel = stages.logits %}{% include "stages/_forward.html" %}{% endwith %}

An htmx answer sends only some panels (panels.py), so a view is made on first use, not up front.
"""

from __future__ import annotations

from functools import cached_property

from . import chain_view, chrome, decode, encode, forward, sampling, softmax
from . import controls as controls_presenter  # the module; Stages.controls is its view
from . import inside as inside_presenter  # not the core's inference/derived/inside.py
from . import share as share_presenter  # not url/share.py, which says who can reach the link
from . import step_bar as step_bar_presenter  # the module; Stages.step_bar is its view
from .screen import Screen


class Stages:
    """The views of one screen's stages, by the panel's name."""

    def __init__(self, screen: Screen):
        self.screen = screen

    def __getitem__(self, name: str):
        """The view called name: stages["logits"] is stages.logits (panels.py names them so)."""
        return getattr(self, name)

    @cached_property
    def tokens(self) -> encode.TokensPanel:
        """Stage 1, encode: the prompt's tokens as chips."""
        return encode.present(self.screen)

    @cached_property
    def prompt_box(self) -> encode.PromptBox:
        """Stage 1's heading and prompt box; the article model reads no text, and says so instead."""
        return encode.present_prompt_box(self.screen)

    @cached_property
    def logits(self) -> forward.LogitsPanel:
        """Stage 2, the forward pass: the logits table."""
        return forward.present(self.screen)

    @cached_property
    def chart(self) -> softmax.ChartPanel:
        """Stage 3, softmax and temperature: the chart of the probabilities."""
        return softmax.present(self.screen)

    @cached_property
    def text(self) -> decode.TextPanel:
        """Stage 5, decode: the text so far."""
        return decode.present(self.screen)

    @cached_property
    def inside(self) -> inside_presenter.InsidePanel:
        """Inside the forward pass: closed, the link that opens it; open, what the step's forward pass computed."""
        return inside_presenter.present(self.screen)

    @cached_property
    def ranges(self) -> sampling.RangesPanel:
        """Stage 4, sampling: the range bar, the pick, the sampler chain."""
        return sampling.present(self.screen)

    @cached_property
    def step_bar(self) -> step_bar_presenter.StepBarView:
        """The step bar of a narrow screen: Step, and the pick with its range enlarged."""
        return step_bar_presenter.present(self.screen)

    @cached_property
    def chain_fields(self) -> chain_view.ChainFields:
        """The sampler chain's fields in the controls form: the penalties and the ranges' order."""
        return chain_view.fields(self.screen)

    @cached_property
    def page(self) -> chrome.PageView:
        """The page around the panels: presenter mode, a fold page's heading."""
        return chrome.present_page(self.screen)

    @cached_property
    def controls(self) -> controls_presenter.ControlsPanel:
        """The controls form, and the panels htmx swaps in it."""
        return controls_presenter.present(self.screen)

    @cached_property
    def mode_link(self) -> controls_presenter.ModeLink:
        """The link to this screen in or out of presenter mode, which every answer swaps."""
        return controls_presenter.present_mode_link(self.screen)

    @cached_property
    def view_link(self) -> controls_presenter.ViewLink:
        """The link to this screen in the other view (the student's, the teacher's), which every answer swaps."""
        return controls_presenter.present_view_link(self.screen)

    @cached_property
    def state_fields(self) -> controls_presenter.StateFields:
        """The controls form's hidden fields, which every action's answer swaps."""
        return controls_presenter.present_state_fields(self.screen)

    @cached_property
    def guide(self) -> chrome.GuideView:
        """The guided first run's flags."""
        return chrome.present_guide(self.screen)

    @cached_property
    def announce(self) -> chrome.AnnounceView:
        """The live region: what the step picked."""
        return chrome.present_announce(self.screen)

    @cached_property
    def share(self) -> share_presenter.SharePanel:
        """The share panel: the QR code, the link, the downloads."""
        return share_presenter.present(self.screen)

    @cached_property
    def languages(self) -> chrome.LanguagesPanel:
        """The language switcher: this screen in each language."""
        return chrome.present_languages(self.screen)


def screen_context(screen: Screen) -> dict:
    """What every template that shows a screen is given: the screen, and its stages' views."""
    return {"screen": screen, "stages": Stages(screen)}
