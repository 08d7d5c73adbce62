"""A model built from a text: pasted, or a class's sentences file opened again; and each such model's page.

GET  /build                     "Build a model from this text": paste a text, or open a saved file
POST /build, /build/file        the text, or the file: counted, kept (class_access.keep), then the stepper on it (303)
GET  /class/ID                  the model: what it is, its sentences, its files, its link, its held-out perplexity
GET  /class/ID/file             the class's sentences file (which is the model: /build opens it again)
GET  /class/ID/sentences.csv    n, author, sentence
GET  /class/ID/counts.csv       previous, next, count for every pair written
GET  /class/ID/qr.svg           a QR code of the page's link
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, redirect, render_template, request

from ...inference.class_text import MAX_FILE_BYTES, ClassText, from_pasted, parse
from ...inference.derived.class_export import counts_csv, sentences_csv
from ...inference.errors import N_, InvalidSentence, UnknownModel
from ..class_model import class_access
from ..class_model import class_view as view
from ..class_model.class_scores import estimate
from ..classroom import room_support as rs
from ..i18n.translations import error_message, lang_param
from ..i18n.translations import gettext as _
from ..serving.policy import Work, costs
from ..url import share

bp = Blueprint("class_models", __name__)


@bp.get("/build")
@costs(Work.NONE)
def build():
    """The form: a text to paste, or a saved file to open."""
    return render_template("class_model/build.html", form=view.build_form())


def kept(text: ClassText):
    """Keep the text's sentences (a 429 or 503 keeps nothing), then the stepper on its model."""
    name = class_access.keep(text)
    return redirect(view.stepper_url(name[len(class_access.CLASS):], lang_param()), code=303)


@bp.post("/build")
@costs(Work.NONE)
def build_from_text():
    """Count a pasted text: each sentence, each paragraph an author."""
    rs.check_origin()
    text = request.form.get("text", "")
    try:
        return kept(from_pasted(text))
    except InvalidSentence as error:
        problem = _("This text cannot be counted: %(why)s.", why=error_message(error))
        return render_template("class_model/build.html", form=view.build_form(text, problem=problem)), 400


@bp.post("/build/file")
@costs(Work.NONE)
def build_from_file():
    """Open a class's sentences file saved from a model's page (or a room)."""
    rs.check_origin()
    upload = request.files.get("file")
    data = upload.read(MAX_FILE_BYTES + 1) if upload else b""
    try:
        if not data:
            raise InvalidSentence(N_("choose a class's sentences file to open"))
        return kept(parse(data))
    except InvalidSentence as error:
        form = view.build_form(file_problem=_("This file cannot be opened: %(why)s.", why=error_message(error)))
        return render_template("class_model/build.html", form=form), 400


def found(text_id: str) -> ClassText:
    """The sentences kept under the address's id; 404 if there are none (or they expired)."""
    try:
        return class_access.found_text(text_id)
    except UnknownModel as error:
        abort(404, description=error_message(error))


def page_work():
    """The page's work for the budget: the sentences it scores (none if the model is not found: a 404)."""
    try:
        return estimate(class_access.found_text(request.view_args["text_id"]))
    except UnknownModel:
        return None


@bp.get("/class/<text_id>")
@costs(Work.SCORE, state=None, estimate=page_work)
def page(text_id: str):
    """A class model's page: what it is, its sentences, its files and link, how well it predicts."""
    found(text_id)
    return render_template("class_model/page.html", page=view.class_page(text_id, lang_param()))


def download(body: str, content_type: str, name: str):
    response = current_app.response_class(body, content_type=content_type)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@bp.get("/class/<text_id>/file")
@costs(Work.NONE)
def model_file(text_id: str):
    """The class's sentences file: the model, to open again at /build."""
    return download(found(text_id).dumps(), "application/json; charset=utf-8", view.file_name(text_id))


@bp.get("/class/<text_id>/sentences.csv")
@costs(Work.NONE)
def sentences_csv_file(text_id: str):
    """The sentences as CSV: n, author, sentence."""
    return download(sentences_csv(found(text_id)), "text/csv; charset=utf-8", f"class-{text_id}-sentences.csv")


@bp.get("/class/<text_id>/counts.csv")
@costs(Work.NONE)
def counts_csv_file(text_id: str):
    """Every pair of tokens written one after the other, with its count, as CSV."""
    found(text_id)
    return download(counts_csv(class_access.class_model(text_id)), "text/csv; charset=utf-8",
                    f"class-{text_id}-counts.csv")


@bp.get("/class/<text_id>/qr.svg")
@costs(Work.NONE)
def qr_code(text_id: str):
    """A QR code of the model page's link."""
    found(text_id)
    return share.qr_code(view.class_page_link(text_id, lang_param()), title=_("QR code of the model's link"), error="m")
