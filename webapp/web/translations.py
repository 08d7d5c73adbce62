"""The page's language: gettext in the templates (`{{ _("Step") }}`, `{% trans %}`)."""

from __future__ import annotations

from flask import Flask


def register(app: Flask) -> None:
    app.jinja_env.add_extension("jinja2.ext.i18n")
    app.jinja_env.install_null_translations(newstyle=True)
