"""The page's languages: adding one is a line here and its catalog under webapp/translations.

The URL's `lang=` takes these codes (url/state.py), the switcher names each in its own language, and
<html lang> takes its tag.
"""

from __future__ import annotations

DEFAULT_LANGUAGE = "en"
# Each language's name in its own language (the switcher), and its tag for <html lang>.
NAMES = {
    "en": ("English", "en"),
    "es": ("Español", "es"),
    "de": ("Deutsch", "de"),
    "fr": ("Français", "fr"),
    "zh": ("中文", "zh-Hans"),  # Simplified Chinese
}
LANGUAGES = tuple(NAMES)
