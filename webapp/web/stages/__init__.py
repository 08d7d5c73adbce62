"""One presenter per stage of the loop: the view object each panel's template renders.

    screen.py           the screen: the state, the model, the step on display, and the rules panels share
    page.py             Stages: each panel's view of one screen, made when a template first asks for it
    encode.py           stage 1, encode: the prompt's tokens as chips
    forward.py          stage 2, the forward pass: the logits table (its rows' marks: table_view.py)
    softmax.py          stage 3, softmax and temperature: the chart, the same step at other temperatures
    sampling.py         stage 4, sampling: the range bar (range_bar.py), r, the pick and its notes, with
                        the sampler chain (chain_view.py, chain_sentences.py), uncertainty
                        (uncertainty_view.py) and sampling many times (many_view.py)
    decode.py           stage 5, decode: the text so far, coloured by surprise on demand
    inside.py           inside the forward pass (inside_attention.py: its attention pictures;
                        inside_numbers.py: what it shows of the core's run, also /api/inside's)
    controls.py         the controls form with the prompt box, and the panels htmx swaps in it
    share.py            the share panel: the QR code, the link, the downloads
    chrome.py           around the stages: the page's frame, the guide, the live region, the languages
    folds.py            the folded sections (worked examples): which a screen shows, and the fold's view
    panels.py           which panels an htmx answer sends, each with its template and view

A presenter computes every figure (written in the page's language), geometry and sentence its panel
shows; its template (templates/stages/, templates/panels/) only places them. Presenters import the
screen; the screen imports none of them.
"""
