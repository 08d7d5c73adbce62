"""How answers are served, whatever the route: the same for every view, declared once, read by one mechanism.

    budget.py       the work a request asks for, estimated before it starts; refused beyond the limit
    cache.py        finished answers kept by URL, for the screens that are a pure function of it
    security.py     request limits and the security headers (a strict Content-Security-Policy)
    compress.py     gzip; vary.py: the Vary header
    error_pages.py  a bad request's 400 with an error fragment, never a stack trace
    fetched.py      a model fetched while the server runs joins the menu
    htmx.py         whether a request wants fragments or the page
    indent.py       the templates' indentation dropped when they compile
"""
