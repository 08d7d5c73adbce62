"""The page's language: chosen by the browser or by `lang=`, kept in every link, keyed in the cache."""

from __future__ import annotations

import doctest

import pytest
from babel.numbers import format_decimal

from webapp.web import create_app
from webapp.web.i18n import translations
from webapp.web.i18n.languages import LANGUAGES
from webapp.web.i18n.translations import SLOT, filler, template_gettext

from .markup import HTMX, hidden_fields, parse, query_of, seen_words
from .seeded import BASE, error_text, joined, page, url
from .test_share import expected_modules, qr_modules, share_link

GERMAN = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}


def html_lang(response) -> str:
    return parse(response.data).find("html").attrs["lang"]


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        ("de-DE,de;q=0.9,en;q=0.5", "de"),
        ("fr-CH, fr;q=0.9", "fr"),
        ("es-419", "es"),
        ("zh-CN,zh;q=0.9", "zh-Hans"),
        ("pt-BR,es;q=0.8", "es"),
        ("en-US;q=0.5,de;q=0.9", "de"),
        ("zh-TW", "en"),
        ("pt-BR", "en"),
        ("", "en"),
        ("de;q=0", "en"),
    ],
)
def test_the_browsers_accept_language_chooses_the_page_language(client, header, lang):
    response = client.get("/", headers={"Accept-Language": header})
    assert response.status_code == 200 and html_lang(response) == lang
    assert "Accept-Language" in response.vary, "the header chose: a shared cache must keep the answers apart"


def test_lang_in_the_url_wins_over_the_header_and_the_answer_does_not_vary_by_it(client):
    response = client.get(url("/", lang="fr"), headers=GERMAN)
    assert html_lang(response) == "fr"
    assert "Accept-Language" not in response.vary


def test_an_unknown_language_is_a_400_that_names_the_languages(client):
    response = client.get(url("/", lang="klingon"))
    assert response.status_code == 400
    message = error_text(response)
    assert "lang" in message and all(code in message for code in LANGUAGES) and "'klingon'" in message


def test_a_language_the_browser_chose_goes_into_the_links_of_the_screen(client, three):
    step = client.get(url("/step", **BASE, ids=joined(three[:2])), headers=GERMAN)
    assert step.status_code == 303 and query_of(step.headers["Location"])["lang"] == "de"
    fragments = client.get(url("/step", **BASE, ids=joined(three[:2])), headers={**GERMAN, **HTMX})
    assert query_of(fragments.headers["HX-Push-Url"])["lang"] == "de"
    assert hidden_fields(parse(fragments.data))["lang"] == "de", "every control sends the language with the state"


def test_english_links_are_as_they_were_without_a_lang(client, three):
    step = client.get(url("/step", **BASE, ids=joined(three[:2])))
    assert "lang" not in query_of(step.headers["Location"])


def switcher(doc) -> dict[str, str]:
    nav = doc.by_id("languages")
    return {a.attrs["lang"]: a.attrs["href"] for a in nav.find_all("a")}


def test_the_switcher_names_each_language_in_itself_and_marks_the_current_one(client, three):
    doc = page(client, **BASE, ids=joined(three), lang="es")
    names = {a.attrs["lang"]: (a.text(), a.attrs.get("aria-current")) for a in doc.by_id("languages").find_all("a")}
    assert names == {
        "en": ("English", None),
        "es": ("Español", "page"),
        "de": ("Deutsch", None),
        "fr": ("Français", None),
        "zh-Hans": ("中文", None),
    }


def test_switching_language_keeps_the_whole_state(client, three):
    params = {**BASE, "ids": joined(three), "src": "s,f,0.5", "at": "1", "top_k": "5", "temperature": "0.7"}
    links = switcher(page(client, **params))
    states = []
    for tag, href in links.items():
        query = query_of(href)
        assert query.pop("lang") == ("zh" if tag == "zh-Hans" else tag)
        assert query.items() >= {**params, "temperature": "0.7"}.items(), f"{tag} loses the state"
        states.append(query)
        assert html_lang(client.get(href)) == tag
    assert all(state == states[0] for state in states), "only lang differs"


def test_the_switcher_follows_the_state_after_a_step(client, three):
    fragments = parse(client.get(url("/step", **BASE, ids=joined(three[:2]), lang="fr"), headers=HTMX).data)
    nav = fragments.by_id("languages")
    assert nav.attrs.get("hx-swap-oob") == "true"
    assert all(query_of(a.attrs["href"])["ids"] == joined(three) for a in nav.find_all("a"))


def test_the_share_link_and_its_qr_code_open_in_the_senders_language(client, three):
    for headers, params, lang in [(GERMAN, {}, "de"), ({}, {"lang": "zh"}, "zh"), ({}, {}, "en")]:
        doc = parse(client.get(url("/", **BASE, ids=joined(three), **params), headers=headers).data)
        link = share_link(doc)
        assert query_of(link)["lang"] == lang, "a student's browser in another language still opens the sender's"
        qr = client.get(doc.by_id("share").find("img").attrs["src"], headers={"Accept-Language": "pt-BR"})
        assert qr_modules(qr.data) == expected_modules(link)


def test_the_cache_does_not_serve_a_german_answer_to_an_english_request():
    app = create_app({"TESTING": True})
    client, kept = app.test_client(), app.extensions["response_cache"]
    address = url("/", **BASE)
    german = client.get(address, headers=GERMAN)
    english = client.get(address, headers={"Accept-Language": "en-GB"})
    assert (html_lang(german), html_lang(english)) == ("de", "en")
    assert len(kept) == 2
    again = client.get(address, headers={"Accept-Language": "de"})
    assert again.data == german.data and kept.hits == 1, "the same language is answered from the cache"
    assert html_lang(client.get(url("/", **BASE, lang="en"), headers=GERMAN)) == "en"


def german_pct(p: float) -> str:
    """Written with Babel's own formatter, independently of webapp.web.i18n.filters: 0.314 -> '31,4 %'."""
    if p == 0:
        return "0\xa0%"
    if p < 0.0005:
        return "<0,1\xa0%"
    return format_decimal(round(100 * p, 1), format="0.0", locale="de") + "\xa0%"


def test_german_figures_use_decimal_commas_and_match_the_json_twin(client, three):
    doc = page(client, **BASE, ids=joined(three[:2]), lang="de")
    twin = client.get(url("/api/step", **BASE, ids=joined(three[:1]), lang="de")).get_json()
    assert twin == client.get(url("/api/step", **BASE, ids=joined(three[:1]))).get_json(), "the JSON is the same"
    rows = doc.by_id("logits").find("tbody").find_all("tr")
    assert len(rows) >= 5
    for tr, row in zip(rows, twin["rows"], strict=False):
        cells = [td.own_text().strip() for td in tr.find_all("td")]
        assert int(cells[2]) == row["id"]
        assert cells[5] == german_pct(row["prob"])
        assert cells[3] == format_decimal(row["logit"], format="0.000", locale="de").replace("-", "−")
        assert cells[6].startswith("[") and "; " in cells[6] and "." not in cells[6], cells[6]
    shown_r = " ".join(doc.by_id("pick-sentence").text().split()).split(" ")[2]
    digits = len(shown_r.split(",")[1])
    assert shown_r == format_decimal(twin["r"], format="0." + "0" * digits, locale="de")


@pytest.mark.parametrize("path", ["/api/step", "/export.csv", "/export-run.csv", "/export.json", "/export-chain.csv"])
def test_the_json_twin_and_the_exports_stay_in_machine_format_in_every_language(client, three, path):
    english = client.get(url(path, **BASE, ids=joined(three)))
    for lang in ("de", "fr"):
        local = client.get(url(path, **BASE, ids=joined(three), lang=lang), headers=GERMAN)
        assert local.status_code == 200 and local.data == english.data, f"{path} in {lang}"


def test_an_error_comes_in_the_page_language_with_its_figures_in_the_local_format(client):
    response = client.get(url("/", prompt="x" * 2001, lang="de"))
    assert response.status_code == 400
    assert error_text(response).endswith(": der Prompt hat 2.001 Zeichen; die Grenze liegt bei 2.000")
    response = client.get(url("/", temperature="7.5"), headers={"Accept-Language": "fr", **HTMX})
    assert response.status_code == 400
    assert "la température doit être comprise entre 0 et 5, pas 7,5" in response.get_data(as_text=True)


def test_the_same_error_in_english_is_as_it_always_was(client):
    response = client.get(url("/", prompt="x" * 2001))
    assert error_text(response).endswith(": the prompt has 2,001 characters; the limit is 2,000")


def test_an_error_from_the_core_is_translated_in_the_web_layer(client):
    response = client.get(url("/api/step", top_p="1.5", lang="es"))
    assert response.status_code == 400
    assert response.get_json() == {"error": "top-p debe estar en (0, 1], no 1.5"}


def test_a_figure_written_as_a_constant_follows_each_requests_language():
    """Jinja folds a filter of constants when it compiles a template (`… up to {{ 1 | fixed(3) }}` in
    the sampling example): the figure must not keep the locale of the request that compiled it."""
    app = create_app()
    template = app.jinja_env.from_string("{{ 1 | fixed(3) }} {{ 0.5 | pct }} {{ -2 | num }} {{ 0.25 | general }}")
    written = {}
    for lang in ("es", "en", "de"):
        with app.test_request_context(url("/", lang=lang)):
            app.preprocess_request()
            written[lang] = template.render()
    assert written == {
        "es": "1,000 50,0\xa0% −2,000 0,25",
        "en": "1.000 50.0 % −2.000 0.25",
        "de": "1,000 50,0\xa0% −2,000 0,25",
    }


def render_in(app, lang: str, source: str, **context) -> str:
    with app.test_request_context(url("/", lang=lang)):
        app.preprocess_request()
        return app.jinja_env.from_string(source).render(**context)


def test_a_templates_message_is_translated_and_its_figures_escaped(app):
    source = '{{ _("Step") }} | {{ _("step %(i)s", i=word) }} | {% trans trimmed n=word %}Step {{ n }}{% endtrans %}'
    english = render_in(app, "en", source, word="<b>")
    assert english == "Step | step &lt;b&gt; | Step &lt;b&gt;"
    german = render_in(app, "de", source, word="<b>")
    assert german.startswith(render_in(app, "de", "{{ _('Step') }}") + " | ")
    assert "&lt;b&gt;" in german and german != english


def test_a_templates_plural_counts_with_num_and_a_percent_sign_stays_single(app):
    source = (
        "{% trans count=n %}{{ count }} token{% pluralize %}{{ count }} tokens{% endtrans %}"
        " | {{ ngettext('%(num)s row', '%(num)s rows', n) }} | {{ _('100%%') }}"
    )
    assert render_in(app, "en", source, n=1) == "1 token | 1 row | 100%"
    assert render_in(app, "en", source, n=4871) == "4871 tokens | 4871 rows | 100%"


@pytest.mark.parametrize(("fold", "extra"), [("worked-logits", {}), ("worked-inside-bigram", {"inside": "1"})])
def test_the_bigrams_smoothing_k_is_written_in_the_page_language(client, fold, extra):
    query = {"model": "austen-bigram", "prompt": "Mr. Darcy said", "lang": "de", **extra}
    text = parse(client.get(url(f"/fold/{fold}", **query), headers=HTMX).data).text()
    assert "0,01" in text and "0.01" not in text, text


def test_a_bundled_models_description_comes_in_the_page_language(client):
    english = parse(client.get(url("/", model="austen-transformer")).data).find("p", "model-description").text()
    german = parse(client.get(url("/", model="austen-transformer", lang="de")).data)
    assert english.startswith("Transformer: a small GPT")
    assert "Schichten" in german.find("p", "model-description").text()
    assert seen_words(german.by_id("model-measure")) == "Perplexität auf zurückgehaltenem Text: 60,4."  # under More


def test_a_description_from_a_data_file_is_text_not_markup(app):
    with app.test_request_context(url("/", lang="de")):
        app.preprocess_request()
        written = app.jinja_env.from_string("{{ data_text(d) }}").render(d="<b>Loaded from /tmp/50%</b>")
    assert written == "&lt;b&gt;Loaded from /tmp/50%&lt;/b&gt;"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_message_filled_row_by_row_reads_as_underscore_writes_it(app, lang):
    """filler: a message translated once with SLOT in it, then filled for each row, is `_()` of that row's value."""
    assert doctest.testmod(translations).failed == 0
    rows = [("token id %(id)s", "id", 4211), ("not in the vocabulary: %(word)s", "word", "<b>&'"),
            (", r typed: %(r)s", "r", 0.25), ("step %(i)s", "i", 0)]
    with app.test_request_context(url("/", lang=lang)):
        app.preprocess_request()
        for message, name, value in rows:
            fill = filler(template_gettext(message, **{name: SLOT}))
            assert fill(value) == template_gettext(message, **{name: value})
