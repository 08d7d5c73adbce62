"""The state in the URL: every screen is a pure function of its address.

    state.py  the State (prompt, settings, generated ids and how each came about) and its query string
    parse.py  reading and checking a query string into a State: a clear message for each bad value
    links.py  a screen's public address, the link students get, links to this state with changes
    paths.py  each endpoint's path, built once per request
    share.py  the QR code, and whether phones can reach the link (the LAN address)
"""
