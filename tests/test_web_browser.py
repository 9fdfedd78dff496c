"""The page of ``coinche-rl serve`` in a real headless Chromium (selenium with Debian's
``chromium`` and ``chromium-driver``; ``.ci/run`` installs them, locally the test is
skipped with the reason when they are missing).

One test walks the page as a person would, on a ``coinche-rl serve`` process started on a
free port: play a whole deal by clicking (auction buttons, then the legal cards of the
hand), open its record in the replay view, step forward and back, analyse a position
and read a row (checked against the library's solver), share the position's address and
open it in a fresh page, then open a deal pair of a tournament results file. It keeps
screenshots and the measured response times under ``tests/artifacts/`` (ignored by
git): ``web-play.png``, ``web-analysis.png``, ``web-tournament.png``,
``web-timings.json``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "tests" / "artifacts"

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def _skip_reason():
    for module, what in (("selenium", "selenium (the dev extra)"),
                         ("starlette", "the web extra (pip install -e '.[web]')")):
        try:
            __import__(module)
        except ImportError:
            return f"{what} is not installed"
    if not CHROMIUM or not CHROMEDRIVER:
        return ("Debian's chromium and chromium-driver are not installed (apt-get install -y "
                "chromium chromium-driver; .ci/run installs them)")
    return None


SKIP = _skip_reason()
if SKIP:
    pytest.skip(SKIP, allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import (StaleElementReferenceException,  # noqa: E402
                                        WebDriverException)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from coinche_rl.arena import run_round_robin  # noqa: E402
from coinche_rl.records import replay_deal  # noqa: E402
from coinche_rl.solver import Solver  # noqa: E402
from coinche_rl.web.analysis import deal_at  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``coinche-rl serve`` in a subprocess, with a records folder and a results file."""
    root = tmp_path_factory.mktemp("serve")
    results = root / "tour.jsonl"
    run_round_robin(["random", "heuristic", "heuristic:aggression=20"], 2, seed=1, out=str(results))
    port = _free_port()
    log = open(root / "serve.log", "w")
    cmd = [sys.executable, "-m", "coinche_rl.cli", "serve", "--port", str(port),
           "--records", str(root / "records"), "--results", str(results), "--searches", "1"]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=str(root))
    url = f"http://127.0.0.1:{port}/"
    t0 = time.perf_counter()
    try:
        while True:
            try:
                with urllib.request.urlopen(url + "api/meta", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass                    # not listening yet: poll again below
            if proc.poll() is not None or time.perf_counter() - t0 > 240:
                log.flush()
                pytest.fail(f"coinche-rl serve did not start:\n{(root / 'serve.log').read_text()}")
            time.sleep(0.2)
        yield {"url": url, "records": root / "records", "startup": time.perf_counter() - t0}
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              "--window-size=1300,1000"):
        opts.add_argument(a)
    driver = None
    for attempt in range(2):                   # a first start on a cold machine can fail
        try:
            driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
            break
        except WebDriverException:
            if attempt:
                raise
            time.sleep(1)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _wait(driver, cond, timeout=60, what="the page"):
    return WebDriverWait(driver, timeout).until(cond, message=f"waiting for {what}")


def _attr(driver, element_id, name):
    """An attribute read in one script call (the page redraws its elements after every
    message: a found element may be gone by the next call)."""
    return driver.execute_script(
        "const e = document.getElementById(arguments[0]); "
        "return e ? (arguments[1] === 'html' ? e.innerHTML : e.getAttribute(arguments[1])) : null;",
        element_id, name)


def _open(driver, url):
    driver.get(url)
    _wait(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1",
          what="the page to start")


def _step(driver) -> int:
    return int(_attr(driver, "step-label", "data-step"))


def _status_ms(driver, prefix) -> int:
    text = driver.find_element(By.ID, "status").text
    assert text.startswith(prefix), text
    return int(text.split()[-2])


def test_play_replay_analyse_share_and_a_tournament_pair_in_chromium(server, browser):
    d = browser
    ARTIFACTS.mkdir(exist_ok=True)
    timings = {"server start-up (s)": round(server["startup"], 1)}
    _open(d, server["url"])

    # ---- play a whole deal by clicking
    Select(d.find_element(By.ID, "setup-pace")).select_by_value("0")
    d.find_element(By.ID, "setup-seed").clear()
    d.find_element(By.ID, "setup-seed").send_keys("8")
    d.find_element(By.ID, "start").click()
    clicks = cards = 0
    while True:
        waiting = _wait(d, lambda d: _attr(d, "waiting", "data-waiting"), what="the game")
        if waiting in ("next", "over"):
            break
        # in the auction pass (the first button), in the play the first legal card; only
        # legal cards are clickable (the others are dimmed), so a click is always legal
        found = d.execute_script(
            "const cards = document.querySelectorAll('#hand-bottom svg.legal');"
            "const buttons = document.querySelectorAll('#play-actions button.action');"
            "const t = cards.length ? cards[0] : buttons[0];"
            "if (!t || document.getElementById('waiting').dataset.waiting !== 'you') return null;"
            "return [t.getAttribute('data-action'), cards.length > 0, "
            "        document.querySelectorAll('#hand-bottom svg.card').length];")
        if not found:
            time.sleep(0.05)
            continue
        action, is_card, in_hand = found
        target = d.find_elements(By.CSS_SELECTOR, f"#hand-bottom svg.legal[data-action='{action}'], "
                                                  f"#play-actions button[data-action='{action}']")
        if not target:
            continue
        hand_before = _attr(d, "hand-bottom", "html")
        log_before = _attr(d, "play-log", "html")
        try:
            target[0].click()
        except StaleElementReferenceException:
            continue
        clicks += 1
        cards += bool(is_card)
        _wait(d, lambda d: _attr(d, "play-log", "html") != log_before or
              _attr(d, "hand-bottom", "html") != hand_before, what="the click's answer")
    assert cards >= 1 and clicks >= 2
    result = d.find_element(By.ID, "result").text
    assert "deal score" in result
    saved = list(server["records"].glob("game-*.json"))
    assert len(saved) == 1
    record = json.loads(saved[0].read_text())
    deal = replay_deal(record)                   # the saved record replays and checks
    assert deal.is_terminal
    assert not deal.is_void, "seed 8 must give a played deal (choose another seed)"
    row = [line for line in result.splitlines() if line.startswith("deal score")][0]
    assert row.split()[-2:] == [str(s) for s in deal.scores]
    d.save_screenshot(str(ARTIFACTS / "web-play.png"))

    # ---- the record in the replay view, stepped forward and back
    d.find_element(By.ID, "open-replay").click()
    _wait(d, lambda d: _attr(d, "step-label", "data-step") is not None, what="the replay")
    start = _step(d)
    assert start == len(deal.auction)            # a replay opens at the first card
    d.find_element(By.ID, "next").click()
    _wait(d, lambda d: _step(d) == start + 1, what="a step forward")
    timings["replay step (ms, in the page)"] = _status_ms(d, "position in")
    assert len(d.find_elements(By.CSS_SELECTOR, "#trick svg.card")) == 1
    d.find_element(By.ID, "prev").click()
    _wait(d, lambda d: _step(d) == start, what="a step back")
    Select(d.find_element(By.ID, "replay-show")).select_by_value("actor")
    _wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "svg.back")) == 24, what="hidden hands")
    Select(d.find_element(By.ID, "replay-show")).select_by_value("all")
    _wait(d, lambda d: not d.find_elements(By.CSS_SELECTOR, "svg.back"), what="every hand shown")

    # ---- analysis at trick 1: a row per legal card, the values of the library
    d.find_element(By.ID, "analyse").click()
    _wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#analysis-table tr.row"), timeout=180,
          what="the analysis")
    timings["first analysis at trick 1 (ms, in the page)"] = _status_ms(d, "analysis in")
    position = deal_at(record, 0, start)
    acts, values = Solver().move_values(position, "score")
    rows = d.find_elements(By.CSS_SELECTOR, "#analysis-table tr.row")
    assert len(rows) == len(position.legal_actions())
    first = rows[0]
    card = first.get_attribute("data-action")
    from coinche_rl.actions import parse_action
    dd = dict(zip((int(a) for a in acts), (int(v) for v in values)))
    assert first.find_element(By.CSS_SELECTOR, "td.dd").text == str(dd[parse_action(card)])
    assert first.find_element(By.CSS_SELECTOR, "td.pimc").text != ""
    d.save_screenshot(str(ARTIFACTS / "web-analysis.png"))

    # ---- the position's address opens the same position in a fresh page
    d.find_element(By.ID, "next").click()
    _wait(d, lambda d: _step(d) == start + 1, what="a step forward")
    d.find_element(By.ID, "share").click()
    _wait(d, lambda d: d.find_element(By.ID, "share-url").get_attribute("value"), what="the link")
    link = d.find_element(By.ID, "share-url").get_attribute("value")
    assert "#r=" in link and len(link) < 4000
    d.get("about:blank")                         # a new document, not a same-page jump
    _open(d, link)
    _wait(d, lambda d: _attr(d, "step-label", "data-step") == str(start + 1), what="the shared position")
    assert "shared position" in d.find_element(By.ID, "replay-title").text

    # ---- a tournament results file: its tables, a deal pair opened in the replay view
    d.find_element(By.ID, "tab-tournaments").click()
    d.find_element(By.ID, "results-open").click()
    _wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#pairs button.open-pair"), what="the pairs")
    tables = d.find_elements(By.CSS_SELECTOR, "table.results-table")
    assert len(tables) == 2 and "heuristic" in tables[1].text      # matchups, ratings
    d.save_screenshot(str(ARTIFACTS / "web-tournament.png"))
    d.find_elements(By.CSS_SELECTOR, "#pairs button.open-pair")[1].click()
    _wait(d, lambda d: "seating 2" in d.find_element(By.ID, "replay-title").text, timeout=120,
          what="the deal pair in the replay view")
    assert "differs" not in d.find_element(By.ID, "replay-title").text
    severe = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe
    (ARTIFACTS / "web-timings.json").write_text(json.dumps(timings, indent=1) + "\n")
    print("web page timings:", timings)


def _shown(driver, element_id) -> bool:
    return bool(driver.execute_script(
        "return document.getElementById(arguments[0]).classList.contains('show');", element_id))


def _in_view(driver, element_id) -> bool:
    """The element's top edge lies inside the window (not below the fold)."""
    return bool(driver.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return r.top >= 0 && r.top < window.innerHeight - 40;", element_id))


def test_the_banner_clears_the_analysis_shows_and_a_pair_names_its_agents(server, browser):
    """An error banner goes on the next success; the auction analysis comes into view,
    sorted, with the hand evaluation's columns; a tournament pair's seats carry the names
    of the agents that sat there."""
    d = browser
    from coinche_rl.agents import make_agent, play_deal
    from coinche_rl.game import Deal
    from coinche_rl.records import deal_to_record
    deal = Deal("ffb", seed=12, dealer=3)
    play_deal(deal, [make_agent("heuristic") for _ in range(4)], seeds=[1, 2, 3, 4])
    server["records"].mkdir(exist_ok=True)
    (server["records"] / "auction.json").write_text(json.dumps(deal_to_record(deal)))
    d.set_window_size(1300, 760)
    try:
        _open(d, server["url"])
        # ---- a refused game shows the banner; the next game started clears it
        Select(d.find_element(By.ID, "setup-pace")).select_by_value("0")
        partner = d.find_element(By.ID, "setup-partner")
        partner.clear()
        partner.send_keys("randm")
        d.find_element(By.ID, "start").click()
        _wait(d, lambda d: _shown(d, "error"), what="the error banner")
        assert "randm" in d.find_element(By.ID, "error").text
        partner.clear()
        partner.send_keys("heuristic")
        d.find_element(By.ID, "start").click()
        _wait(d, lambda d: _attr(d, "waiting", "data-waiting"), what="the game")
        assert not _shown(d, "error"), "the banner stays after a success"

        # ---- the auction analysis: in view, sorted by the nn value, hand evaluation
        d.get("about:blank")                     # a new document, not a same-page jump
        _open(d, server["url"] + "#lib=auction.json")
        _wait(d, lambda d: _attr(d, "step-label", "data-step") is not None, what="the replay")
        d.find_element(By.ID, "first").click()
        _wait(d, lambda d: _step(d) == 0, what="the start of the auction")
        d.execute_script("window.scrollTo(0, 0);")
        d.find_element(By.ID, "analyse").click()
        _wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#analysis-table tr.row"), timeout=180,
              what="the auction analysis")
        assert _in_view(d, "analysis-table"), "the analysis is below the fold"
        nn = [float(td.text) for td in d.find_elements(By.CSS_SELECTOR, "#analysis-table td.nn")]
        assert len(nn) == len(deal_at(deal_to_record(deal), 0, 0).legal_actions())
        assert nn == sorted(nn, reverse=True)
        mc = [td.text for td in d.find_elements(By.CSS_SELECTOR, "#analysis-table td.mc-ev")]
        assert sum(x != "" for x in mc) >= 30          # every bid, not pass
        headers = d.find_element(By.CSS_SELECTOR, "#analysis-table tr").text
        assert "hand evaluation" in headers and "P(made)" in headers

        # ---- a tournament pair: the seats are named by their agents
        d.find_element(By.ID, "tab-tournaments").click()
        d.find_element(By.ID, "results-open").click()
        _wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#pairs button.open-pair"), what="the pairs")
        d.find_elements(By.CSS_SELECTOR, "#pairs button.open-pair")[0].click()
        _wait(d, lambda d: "seating 1" in d.find_element(By.ID, "replay-title").text, timeout=120,
              what="the deal pair in the replay view")
        title = d.find_element(By.ID, "replay-title").text
        seats = title[title.index("(") + 1:title.rindex(")")].split(", ")
        specs = [x.split(": ", 1)[1] for x in seats]
        _wait(d, lambda d: _attr(d, "seat-0", "html") and specs[0] in
              d.find_element(By.CSS_SELECTOR, "#replay-table #seat-0 .name").text, what="the agents' names")
        for s in range(4):
            label = d.find_element(By.CSS_SELECTOR, f"#replay-table #seat-{s} .name").text
            assert label.startswith(f"{specs[s]} (seat {s})"), label
        info = d.find_element(By.ID, "replay-info").text
        assert not any(w in info.split() for w in ("you", "partner", "right", "left")), info
    finally:
        d.set_window_size(1300, 1000)


def test_belote_for_two_players_in_chromium(server, browser):
    """Belote à deux end to end: the play form for two players, a whole deal played by
    clicking (the prise's buttons, then the legal cards of the hand or of the table), its
    record in the replay view with the covered cards drawn face down, an analysis at a
    searched trick read against the library's two-player solver, its shared address."""
    d = browser
    _open(d, server["url"])
    rules = d.find_element(By.ID, "setup-rules")
    rules.clear()
    rules.send_keys("belote_a_deux")
    _wait(d, lambda d: not d.find_element(By.ID, "setup-partner").is_displayed(),
          what="the form for two players")
    assert [o.text for o in Select(d.find_element(By.ID, "setup-seat")).options] == ["0", "1"]
    assert d.find_element(By.ID, "setup-right-name").text == "opponent"
    Select(d.find_element(By.ID, "setup-pace")).select_by_value("0")
    d.find_element(By.ID, "setup-seed").clear()
    d.find_element(By.ID, "setup-seed").send_keys("5")
    before = set(server["records"].glob("game-*.json"))
    d.find_element(By.ID, "start").click()
    covered_seen = cards = 0
    while True:
        waiting = _wait(d, lambda d: _attr(d, "waiting", "data-waiting"), what="the game")
        if waiting in ("next", "over"):
            break
        # the prise: the last button (take, name, an exchange choice); the play: the
        # first legal card, in the hand or face up on the table
        found = d.execute_script(
            "const cards = document.querySelectorAll('#hand-bottom svg.legal, #stacks-bottom svg.legal');"
            "const buttons = document.querySelectorAll('#play-actions button.action');"
            "const t = cards.length ? cards[0] : buttons[buttons.length - 1];"
            "if (!t || document.getElementById('waiting').dataset.waiting !== 'you') return null;"
            "return [t.getAttribute('data-action'), cards.length > 0, "
            "        document.querySelectorAll('.stack.covered svg.back').length];")
        if not found:
            time.sleep(0.05)
            continue
        action, is_card, covered = found
        covered_seen = max(covered_seen, covered)
        target = d.find_elements(By.CSS_SELECTOR, f"#hand-bottom svg.legal[data-action='{action}'], "
                                                  f"#stacks-bottom svg.legal[data-action='{action}'], "
                                                  f"#play-actions button[data-action='{action}']")
        if not target:
            continue
        log_before = _attr(d, "play-log", "html")
        try:
            target[0].click()
        except StaleElementReferenceException:
            continue
        cards += bool(is_card)
        _wait(d, lambda d: _attr(d, "play-log", "html") != log_before, what="the click's answer")
    assert cards >= 8 and covered_seen == 6          # 3 stacks each, covered, seen face down
    assert "deal score" in d.find_element(By.ID, "result").text
    saved = set(server["records"].glob("game-*.json")) - before
    assert len(saved) == 1
    record = json.loads(saved.pop().read_text())
    deal = replay_deal(record)
    assert deal.is_terminal and not deal.is_void and deal.rules.name == "belote_a_deux"
    d.save_screenshot(str(ARTIFACTS / "web-two-play.png"))

    # ---- the replay: the covered cards face down, named players, an analysis
    d.find_element(By.ID, "open-replay").click()
    _wait(d, lambda d: _attr(d, "step-label", "data-step") is not None, what="the replay")
    from coinche_rl.web.analysis import SEARCH_TRICKS, play_start
    start = _step(d)
    assert start == play_start(deal)
    assert len(d.find_elements(By.CSS_SELECTOR, "#replay-table .stack.covered svg.back")) == 6
    # your game's seats named as you played them: you, and the opponent's agent
    assert d.find_element(By.CSS_SELECTOR, "#replay-table #seat-0 .name").text.startswith("you (seat 0)")
    assert d.find_element(By.CSS_SELECTOR, "#replay-table #seat-1 .name").text.startswith("heuristic (seat 1)")
    assert [o.get_attribute("value") for o in Select(d.find_element(By.ID, "replay-show")).options] \
        == ["all", "actor", "0", "1"]
    step = start + 2 * (16 - SEARCH_TRICKS)
    d.execute_script("goto(arguments[0]);", step)
    _wait(d, lambda d: _step(d) == step, what="the first searched trick")
    d.find_element(By.ID, "analyse").click()
    _wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#analysis-table tr.row"), timeout=180,
          what="the analysis")
    position = deal_at(record, 0, step)
    from coinche_rl.actions import parse_action
    from coinche_rl.solver_two import TwoPlayerSolver
    values = TwoPlayerSolver().card_values(position.state)
    rows = d.find_elements(By.CSS_SELECTOR, "#analysis-table tr.row")
    assert len(rows) == len(position.legal_actions())
    card = rows[0].get_attribute("data-action")
    assert rows[0].find_element(By.CSS_SELECTOR, "td.dd-points").text == \
        str(values[parse_action(card) - 75])
    assert rows[0].find_element(By.CSS_SELECTOR, "td.pimc").text != ""
    # the card-play network's value of every card, as the library gives it
    from coinche_rl.agents import make_agent
    nn = make_agent("nn", position.rules)
    nn.reset(position.current_player, position.rules, 0)
    want = nn.action_values(position.view(position.current_player)).values
    for row in rows:
        shown = row.find_element(By.CSS_SELECTOR, "td.nn").text
        assert float(shown) == pytest.approx(want[parse_action(row.get_attribute("data-action"))],
                                             abs=0.051)
    d.save_screenshot(str(ARTIFACTS / "web-two-analysis.png"))

    # ---- its address opens the same position, covered cards still face down
    d.find_element(By.ID, "share").click()
    _wait(d, lambda d: d.find_element(By.ID, "share-url").get_attribute("value"), what="the link")
    link = d.find_element(By.ID, "share-url").get_attribute("value")
    covered = len(d.find_elements(By.CSS_SELECTOR, "#replay-table .stack.covered svg.back"))
    d.get("about:blank")
    _open(d, link)
    _wait(d, lambda d: _attr(d, "step-label", "data-step") == str(step), what="the shared position")
    assert len(d.find_elements(By.CSS_SELECTOR, "#replay-table .stack.covered svg.back")) == covered
    assert len(d.find_elements(By.CSS_SELECTOR, "#replay-table .seat")) == 2
    severe = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe
