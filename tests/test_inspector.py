"""The web inspector in a real browser (Debian's Chromium, driven by Playwright) against a real
memstrata server on 127.0.0.1, seeded through the HTTP API.

The screenshots in docs/images come from the same server and data; refresh them with
``python tests/test_inspector.py``.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from inspector_seed import (
    INJECTED,
    MINUTE_NS,
    SUMMARISED,
    TRIP,
    Served,
    batch,
    post,
    seeded_server,
)
from playwright.sync_api import Browser, Page, ViewportSize, expect, sync_playwright
from server_helpers import make_key, revoke_key, running_server

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium "
                                "(apt-get install chromium)")

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"]
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with seeded_server(str(tmp_path_factory.mktemp("inspector") / "memory.db")) as served:
        yield served


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        yield chromium
        chromium.close()
    finally:
        playwright.stop()


def new_page(browser: Browser, viewport: ViewportSize = DESKTOP) -> Page:
    context = browser.new_context(viewport=viewport, timezone_id="UTC", locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15_000)
    return page


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    p = new_page(browser)
    crashes: list[str] = []
    p.on("pageerror", lambda error: crashes.append(str(error)))
    yield p
    p.context.close()
    assert not crashes, f"the page's scripts failed: {crashes}"


def sign_in(page: Page, served: Served, key: str | None = None) -> None:
    page.goto(served.base_url + "/")
    page.get_by_label("API key").fill(key or served.key)
    page.get_by_role("button", name="Sign in").click()


def session_row(page: Page, session: str) -> Any:
    return page.locator(f'.session[data-session="{session}"]')


def test_sign_in_lists_the_tenants_sessions_with_counts(page: Page, served: Served) -> None:
    sign_in(page, served)
    expect(session_row(page, "trip")).to_contain_text("30 messages")
    expect(session_row(page, "trip")).to_contain_text("summary")
    expect(session_row(page, "cooking")).to_contain_text("3 messages")
    expect(session_row(page, "cooking")).to_contain_text(re.compile(r"\(\d+ minutes ago\)"))
    # Newest activity first; another tenant's session is never listed.
    expect(page.locator(".session")).to_have_count(2)
    expect(page.locator(".session-id")).to_have_text(["cooking", "trip"])
    expect(page.get_by_text("secret-plans")).to_have_count(0)
    # The key lives in this tab's sessionStorage only, and the page shows its id, not the secret.
    assert page.evaluate("sessionStorage.getItem('memstrata.key')") == served.key
    assert page.evaluate("localStorage.length") == 0
    expect(page.locator("#key-label")).to_have_text("_".join(served.key.split("_")[:2]))


def test_the_timeline_pages_to_older_messages(page: Page, served: Served) -> None:
    sign_in(page, served)
    page.get_by_role("link", name="trip").click()
    timeline = page.locator(".timeline > .msg")
    expect(timeline).to_have_count(20)
    newest = timeline.first
    expect(newest.locator(".sender")).to_have_text("Atlas")
    expect(newest.locator(".role")).to_have_text("assistant")
    expect(newest.locator(".content")).to_have_text("Ticket detail 15: seat row 18, car 1.")
    at = served.trip_start + (len(TRIP) - 1) * 7 * MINUTE_NS
    shown = datetime.fromtimestamp(at / 1e9, UTC).strftime("%Y-%m-%d %H:%M")
    expect(newest.locator("time")).to_have_text(shown)  # the browser runs in UTC
    expect(page.locator(".end")).to_be_hidden()
    page.get_by_role("button", name="Older messages").click()
    expect(timeline).to_have_count(30)
    expect(timeline.last.locator(".content")).to_have_text(TRIP[0][2])
    expect(timeline.last.locator(".sender")).to_have_text("Mei")
    expect(page.get_by_role("button", name="Older messages")).to_be_hidden()
    expect(page.locator(".end")).to_be_visible()
    # Stored text is shown as text: the markup in a message never becomes an element.
    expect(page.locator(".timeline").get_by_text(INJECTED)).to_be_visible()
    assert page.locator(".timeline img").count() == 0
    assert page.title() == "memstrata inspector"


def test_the_rolling_summary_shows_decisions_discussions_and_tally(page: Page,
                                                                  served: Served) -> None:
    sign_in(page, served)
    page.get_by_role("link", name="trip").click()
    decisions = page.locator(".summary .decision")
    expect(decisions).to_have_count(3)
    expect(decisions.nth(0)).to_have_class("decision do")
    expect(decisions.nth(0)).to_contain_text("take the train to Hualien, not a flight")
    expect(decisions.nth(1).locator(".badge")).to_have_text("Don't")
    expect(decisions.nth(1)).to_contain_text("book the 6 a.m. departure")
    summary = page.locator(".summary")
    expect(summary).to_contain_text("book the 9:10 Puyuma")
    expect(summary).to_contain_text("Atlas: the Puyuma express is 40 minutes faster")
    expect(summary.locator(".past .discussion")).to_contain_text("April 14 to 16 suits everyone")
    cursor = served.get("/v1/sessions/trip/summary")["cursor"]
    expect(summary.locator(".cursor")).to_have_text(f"#{cursor}")
    expect(summary.locator(".tokens")).to_contain_text(" in · ")
    # What the summary covers is marked in the timeline; what came after it is not.
    timeline = page.locator(".timeline > .msg")
    expect(timeline).to_have_count(20)
    later = len(TRIP) - SUMMARISED
    expect(timeline.locator(".in-summary")).to_have_count(20 - later)
    expect(timeline.nth(later - 1)).not_to_have_class(re.compile(r"\bsummarised\b"))
    expect(timeline.nth(later)).to_have_class(re.compile(r"\bsummarised\b"))
    expect(timeline.nth(later).locator(".msg-id")).to_have_text(f"#{cursor}")


def test_search_shows_hits_with_neighbours_and_scores(page: Page, served: Served) -> None:
    sign_in(page, served)
    page.get_by_role("link", name="Search").click()
    page.get_by_label("Words or a question").fill("Taroko Gorge")
    page.get_by_label("In", exact=True).select_option("trip")
    page.get_by_label("Match").select_option("hybrid")
    page.get_by_role("button", name="Search").click()
    matched = page.locator(".hit.matched")
    expect(matched.first).to_be_visible()
    expect(matched.filter(has_text="My sister wants to see Taroko Gorge.")).to_have_count(1)
    expect(matched.first.locator(".score")).to_have_text(re.compile(r"^score \d\.\d{3}$"))
    expect(page.locator(".hit.context").first).to_contain_text("context")
    # Neighbours sit around their match, oldest first.
    ids = [int(i) for i in page.locator(".hit").evaluate_all("els => els.map(e => e.dataset.id)")]
    assert ids == sorted(ids)
    assert page.locator(".hit.context").count() >= 1
    assert "session=trip" in page.url and "match=hybrid" in page.url


def test_search_says_no_match_plainly(page: Page, served: Served) -> None:
    sign_in(page, served)
    page.goto(served.base_url + "/#/search?q=zeppelin&match=keyword&time_range=7d")
    expect(page.locator(".no-match")).to_contain_text("No match")
    expect(page.locator(".no-match")).to_contain_text("zeppelin")
    expect(page.locator(".hit")).to_have_count(0)


def test_search_across_sessions_names_each_hits_session(page: Page, served: Served) -> None:
    sign_in(page, served)
    page.goto(served.base_url + "/#/search?q=simmer&match=keyword")
    hit = page.locator(".hit.matched")
    expect(hit).to_have_count(1)
    expect(hit.locator(".hit-session")).to_have_text("cooking")


def test_bad_search_input_is_shown_as_the_servers_error(page: Page, served: Served) -> None:
    sign_in(page, served)
    page.goto(served.base_url + "/#/search?q=train&match=fuzzy")
    expect(page.get_by_role("alert")).to_contain_text("422")
    expect(page.get_by_role("alert")).to_contain_text("match")


def test_an_unknown_session_is_reported_once(page: Page, served: Served) -> None:
    sign_in(page, served)
    expect(session_row(page, "trip")).to_be_visible()
    page.goto(served.base_url + "/#/s/no-such-session")
    expect(page.get_by_role("alert")).to_have_count(1)
    expect(page.get_by_role("alert")).to_contain_text("404")
    expect(page.get_by_role("alert")).to_contain_text("no-such-session")


def test_the_error_memory_shows_records_and_expiry(page: Page, served: Served) -> None:
    sign_in(page, served)
    page.get_by_role("link", name="Errors").click()
    records = page.locator(".record")
    expect(records).to_have_count(2)
    fetch = records.filter(has_text="web_fetch")
    expect(fetch).to_contain_text("GET https://example.org/timetable timed out after 10 s")
    expect(fetch).to_contain_text("retry once with a 30 s timeout")
    expect(fetch.locator(".keywords li")).to_have_text(["timeout", "readtimeout"])
    expect(fetch.locator(".expiry")).to_contain_text("(in 90 days)")
    expect(records.filter(has_text="shell").locator(".outcome")).to_have_text("failed")
    page.get_by_label("Find").fill("permission denied")
    page.get_by_role("button", name="Find").click()
    expect(records).to_have_count(1)
    expect(records.first).to_contain_text("/etc/hosts")


def test_a_wrong_key_is_refused_on_the_sign_in_form(page: Page, served: Served) -> None:
    sign_in(page, served, key="ms_00000000_not-a-real-secret")
    expect(page.get_by_role("alert")).to_contain_text("refused")
    expect(page.get_by_label("API key")).to_be_visible()
    expect(page.locator(".session")).to_have_count(0)
    assert page.evaluate("sessionStorage.getItem('memstrata.key')") is None


def test_a_revoked_key_returns_to_sign_in_and_sign_out_forgets(page: Page,
                                                               served: Served) -> None:
    key = make_key(served.db_path, "acme", "short-lived")
    sign_in(page, served, key=key)
    expect(session_row(page, "trip")).to_be_visible()
    revoke_key(served.db_path, key)
    page.get_by_role("link", name="Errors").click()
    expect(page.get_by_role("alert")).to_contain_text("refused the key")
    expect(page.get_by_label("API key")).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('memstrata.key')") is None
    sign_in(page, served)
    expect(session_row(page, "trip")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("API key")).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('memstrata.key')") is None


def test_a_digest_and_a_missing_summary_are_shown_as_such(browser: Browser,
                                                         tmp_path: Path) -> None:
    db_path = str(tmp_path / "memory.db")
    with running_server(db_path) as base_url:  # no LLM: summaries are digests
        key = make_key(db_path, "solo")
        rows = [("Mei", "user", f"Note {i} about the ferry timetable") for i in range(20)]
        day_ago = time.time_ns() - 86400 * 10**9
        post(base_url, key, "/v1/sessions/notes/messages/batch", batch(rows, day_ago))
        post(base_url, key, "/v1/sessions/fresh/messages", {"role": "user", "content": "hi"})
        assert post(base_url, key, "/v1/sessions/notes/summarize", None)["summary"]
        page = new_page(browser)
        try:
            sign_in(page, Served(base_url, key, db_path, 0))
            page.get_by_role("link", name="notes").click()
            expect(page.locator(".summary .digest")).to_contain_text("Note 0 about the ferry")
            expect(page.locator(".summary .tally")).to_contain_text("kind digest")
            expect(page.locator(".summary .decision")).to_have_count(0)
            page.goto(base_url + "/#/s/fresh")
            expect(page.locator(".summary")).to_contain_text("No summary yet")
            expect(page.locator(".timeline > .msg")).to_have_count(1)
        finally:
            page.context.close()


def overflow(page: Page) -> int:
    """How many CSS pixels the page is wider than the viewport (0: no sideways scrolling)."""
    width: int = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    return width


def test_a_phone_width_screen_never_scrolls_sideways(browser: Browser, served: Served) -> None:
    page = new_page(browser, PHONE)
    try:
        sign_in(page, served)
        expect(session_row(page, "trip")).to_be_visible()
        assert overflow(page) == 0
        page.get_by_role("link", name="trip").click()
        page.get_by_role("button", name="Older messages").click()
        expect(page.locator(".timeline > .msg")).to_have_count(30)
        expect(page.locator(".summary .decision")).to_have_count(3)
        assert overflow(page) == 0
        page.goto(served.base_url + "/#/search?q=Taroko+Gorge&session=trip&match=hybrid")
        expect(page.locator(".hit.matched").first).to_be_visible()
        assert overflow(page) == 0
        page.goto(served.base_url + "/#/errors")
        expect(page.locator(".record")).to_have_count(2)
        assert overflow(page) == 0
    finally:
        page.context.close()


SHOTS = [(DESKTOP, "#/s/trip", ".summary .decision", "session"),
         (DESKTOP, "#/search?q=Taroko+Gorge&session=trip&match=hybrid", ".hit.matched", "search"),
         (DESKTOP, "#/errors", ".record", "errors"),
         (PHONE, "#/s/trip", ".summary .decision", "phone")]


def refresh_screenshots() -> None:
    """Rewrite docs/images/inspector-*.png from a freshly seeded server."""
    IMAGES.mkdir(parents=True, exist_ok=True)
    with (tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright,
          seeded_server(str(Path(tmp) / "memory.db")) as served):
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        for viewport, route, ready, name in SHOTS:
            page = new_page(chromium, viewport)
            sign_in(page, served)
            expect(page.locator(".session").first).to_be_visible()
            page.goto(f"{served.base_url}/{route}")
            expect(page.locator(ready).first).to_be_visible()
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(IMAGES / f"inspector-{name}.png"))
            page.context.close()
        chromium.close()


if __name__ == "__main__":
    refresh_screenshots()
    sys.exit(0)
