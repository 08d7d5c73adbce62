"""Every classroom's language: the catalogs, numbers as the locale writes them, tokens as the page writes them.

    languages.py     the page's languages: a new one is a line here and a catalog under webapp/translations
    translations.py  the request's language (from lang=, else the browser's), gettext for Python and templates
    filters.py       figures rounded for display in the locale's digits: 31,0 %, [0,442; 0,460)
    labels.py        a token's text as the page shows it: spaces and line breaks made visible, escaped
"""
