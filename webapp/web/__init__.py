"""The web layer: Flask app factory, blueprints, templates. It parses, calls the core, renders."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from ..inference.article import ARTICLE, ArticleModel
from ..inference.machinery.registry import DEFAULT_MODEL
from ..inference.machinery.user_models import load_available
from .class_model import class_access
from .classroom import room_support
from .classroom.student_polls import StudentPolls
from .i18n import filters, glossary, translations

# room_students, room_teacher and room_sentences are imported for their routes, which each adds to room.bp.
from .lessons import lesson_access
from .routes import api, class_models, decode, lessons, room, room_sentences, room_students, room_teacher  # noqa: F401
from .routes import stepper as views
from .serving import budget, cache, compress, fetched, policy, security
from .serving import error_pages as errors
from .serving.indent import StripIndent
from .serving.strict_json import StrictJSONProvider
from .url import paths

PACKAGE_DIR = Path(__file__).resolve().parent.parent


def asset_dir(name: str) -> Path:
    """templates/ or static/: inside the package in a built wheel, beside it in a source checkout."""
    inside = PACKAGE_DIR / name
    return inside if inside.is_dir() else PACKAGE_DIR.parent / name


def create_app(config: dict | None = None) -> Flask:
    """Build the app; load the models once, here."""
    app = Flask(__name__, template_folder=asset_dir("templates"), static_folder=asset_dir("static"))
    app.json = StrictJSONProvider(app)  # null where a number is not finite: every JSON parser reads the answers
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=64 * 1024,
        FRAME_ANCESTORS="'self'",
        SEND_FILE_MAX_AGE_DEFAULT=3600,
    )
    if config:
        app.config.from_mapping(config)
    app.jinja_env.add_extension(StripIndent)  # each line's indentation dropped once, when a template compiles
    models = app.config.get("MODELS") or load_available(app.config.get("MODELS_DIR") or PACKAGE_DIR / "models")
    app.config.setdefault("DEFAULT_MODEL", DEFAULT_MODEL if DEFAULT_MODEL in models else next(iter(models)))
    models = {**models, ARTICLE: ArticleModel()}  # in the menu; each request builds its own from the URL
    app.extensions["models"] = models
    class_access.configure(app)  # the models by name, and a class model named in a URL
    translations.register(app)
    filters.register(app)
    glossary.register(app)
    paths.register(app)
    errors.register(app)
    budget.time_requests(app)  # first: its Server-Timing goes on after the cache has kept the answer
    security.check_requests(app)  # before the cache: a request refused is never answered from it
    fetched.register(app)  # before the cache: a model fetched meanwhile changes the screens
    cache.register(app)  # before compress and security: it keeps the answer as they leave it
    translations.vary_by_language(app)  # after the cache: the answer it keeps says Vary too
    compress.register(app)
    security.register(app)
    budget.register(app)  # after the cache: an answer from it costs nothing
    app.register_blueprint(views.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(decode.bp)
    room_support.configure(app)
    app.wsgi_app = StudentPolls(app.wsgi_app, app)  # students' polls answered before Flask where they can be
    app.register_blueprint(room.bp)  # the routes of room_teacher.py, room_students.py and room_sentences.py
    lesson_access.configure(app)
    app.register_blueprint(lessons.bp)
    app.register_blueprint(class_models.bp)
    policy.check_declared(app)  # every route says what it may cost and how it may be cached
    policy.keep_private(app)
    return app
