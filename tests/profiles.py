"""The browser profile a process keeps for its tests' tabs (``kept_profile``).

A test's page used to open in a new, empty profile (a Playwright context): every page then
downloaded and compiled BokehJS, Pyodide's JavaScript and its WebAssembly again, a first
visit each time. Most tests look at what the page does once it is there, not at its first
download, so their tabs open in one profile the process keeps, its HTTP cache included: a
student's next visit, not the first (on this 2-core machine about 3 of a static page's 9
CPU-seconds of boot). A test of a cold load, of the network, or of what a profile holds (its
offline switch, its locale, touch, its clock, its cache) opens a profile of its own. The
Panel tests do not use it yet (they close their pages' contexts; it would save about 1 of a
Panel page's 8 CPU-seconds).

Service workers are blocked in the kept profile: a tab is not served by the worker an
earlier test's tab registered (tests/site/test_network.py tests that one, in profiles of its
own). Its pages share no storage the page uses (it keeps nothing in localStorage or cookies).
"""

from __future__ import annotations

import tempfile

from page_loads import watch_context

#: browser -> how it was launched (executable, args), as ``kept_profile`` launches its profile
_LAUNCHED: dict = {}
#: browser -> (its kept context, the temporary folder of its profile)
_KEPT: dict = {}


def launched(browser, executable_path: str, args: list[str]) -> None:
    """Note how ``browser`` was launched (tests/conftest.py's ``browser`` fixture)."""
    _LAUNCHED[browser] = (executable_path, list(args))


def kept_profile(browser):
    """The persistent context kept beside ``browser``: launched by the same Playwright, from
    the same executable with the same arguments, at its first use; closed with it."""
    if browser not in _KEPT:
        executable_path, args = _LAUNCHED[browser]
        folder = tempfile.TemporaryDirectory(prefix="il-profile-")
        context = browser.browser_type.launch_persistent_context(
            folder.name, executable_path=executable_path, args=args, service_workers="block"
        )
        watch_context(context)
        _KEPT[browser] = (context, folder)
    return _KEPT[browser][0]


def close_kept_profile(browser) -> None:
    """Close ``browser``'s kept profile, if it has one (before ``browser`` itself)."""
    _LAUNCHED.pop(browser, None)
    kept = _KEPT.pop(browser, None)
    if kept is not None:
        context, folder = kept
        try:
            context.close()
        finally:
            folder.cleanup()
