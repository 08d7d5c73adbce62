"""One presenter per stage of the loop: the view object each panel's template renders.

    screen.py   the screen: the state, the model, the step on display, and the rules every panel shares
    page.py     Stages: each stage's view of one screen, made when a template first asks for it
    forward.py  stage 2, the forward pass: the logits table
    folds.py    the folded sections (worked examples): which a screen shows, and the fold's view
    panels.py   which panels an htmx answer sends
    controls.py the controls form with the prompt box, and the panels htmx swaps in it
    share.py    the share panel: the QR code, the link, the downloads
    chrome.py   around the stages: the page's frame, the guide, the live region, the languages

A presenter computes every figure (written in the page's language), geometry and sentence its panel
shows; its template only places them. Presenters import the screen; the screen imports none of them.
"""
