"""The page's server (``coinche-rl serve``, :mod:`coinche_rl.web`) through Starlette's test
client: a game over the socket, what a seat is sent (no hidden card), bad messages,
replay, the analysis against the library's own functions, branches, tournament results
files, and the command without the web extra."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("httpx2", reason="the dev extra's httpx2 drives Starlette's TestClient")

from starlette.testclient import TestClient  # noqa: E402

from coinche_rl import cli  # noqa: E402
from coinche_rl import web  # noqa: E402
from coinche_rl.agents import PlayerView, make_agent, play_deal  # noqa: E402
from coinche_rl.agents.neural.agent import nn_values  # noqa: E402
from coinche_rl.arena import run_round_robin, summary_tables  # noqa: E402
from coinche_rl.cards import cards_of, format_card  # noqa: E402
from coinche_rl.game import Deal  # noqa: E402
from coinche_rl.rules import get_rules  # noqa: E402
from coinche_rl.records import deal_to_record, replay, replay_deal  # noqa: E402
from coinche_rl.solver import Solver  # noqa: E402
from coinche_rl.web.analysis import deal_at  # noqa: E402
from coinche_rl.web.app import create_app  # noqa: E402
from coinche_rl.web.views import table_view  # noqa: E402
from web_client import client, records, recv as _recv  # noqa: E402,F401

CARD = re.compile(r"^[789TJQKA][SHDC]$")


def _until_person(ws, seen=None):
    """Messages until the person is to act or the deal is over; the last view."""
    while True:
        m = _recv(ws)
        if seen is not None:
            seen.append(m)
        assert m["type"] == "state", m
        if m["view"]["waiting"] in ("you", "next", "over"):
            return m["view"]


def _play_out(ws, view, seen=None, pick=0):
    """The person plays legal action ``pick`` (the first by default) to the deal's end."""
    while view["waiting"] == "you":
        legal = view["legal"]
        ws.send_text(json.dumps({"type": "act", "action": legal[min(pick, len(legal) - 1)]["id"]}))
        view = _until_person(ws, seen)
    return view


def test_a_deal_s_record_is_saved_before_the_view_that_shows_its_end(client, records):
    before = set(records.iterdir())
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "new", "seat": 0, "partner": "random",
                                 "opponents": ["random", "random"], "seed": 8, "deals": 1}))
        view = _play_out(ws, _until_person(ws))
        assert view["waiting"] == "over"
        # checked before anything else is sent: a person who leaves now leaves the record
        new = [p for p in set(records.iterdir()) - before if not p.name.startswith(".")]
        assert len(new) == 1
        assert replay_deal(json.loads(new[0].read_text())).is_terminal


def _finished_record(seed=11, specs=("heuristic",) * 4):
    deal = Deal("ffb", seed=seed, dealer=3)
    play_deal(deal, [make_agent(s) for s in specs], seeds=[1, 2, 3, 4])
    return deal, deal_to_record(deal)


# ---------------------------------------------------------------------- play
def test_a_game_of_two_deals_over_the_socket_is_saved_and_replays(client, records):
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "new", "seat": 1, "partner": "heuristic",
                                 "opponents": ["random", "heuristic"], "seed": 4, "deals": 2}))
        view = _play_out(ws, _until_person(ws))
        assert view["waiting"] == "next" and view["result"] is not None
        first = view["result"]["scores"]
        assert view["match"]["scores"] == first and view["match"]["deals_played"] == 1
        assert view["agents"] == ["heuristic", None, "random", "heuristic"]   # left, you, right, partner
        ws.send_text(json.dumps({"type": "next"}))
        view = _play_out(ws, _until_person(ws))
        assert view["waiting"] == "over"
        ws.send_text(json.dumps({"type": "record"}))
        m = _recv(ws)
    assert m["type"] == "record" and m["record"]["format"] == "coinche-rl/match"
    rec = m["record"]
    replayed = replay(rec)                         # every action and figure checked
    assert len(replayed["deals"]) == 2 and list(replayed["deals"][0].scores) == first
    assert replayed["scores"] == view["match"]["scores"]
    saved = json.loads((records / m["name"]).read_text())
    assert saved == rec                           # the records folder has the same record


def test_the_same_seed_plays_the_same_game(client):
    finals = []
    for _ in range(2):
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "new", "seed": 9, "opponents": "random"}))
            _play_out(ws, _until_person(ws))
            ws.send_text(json.dumps({"type": "record"}))
            finals.append(_recv(ws)["record"])
    assert finals[0] == finals[1]


def _card_tokens(obj, out):
    if isinstance(obj, str):
        out.update(t for t in re.split(r"[\s,;:()]+", obj) if CARD.match(t))
    elif isinstance(obj, dict):
        for v in obj.values():
            _card_tokens(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _card_tokens(v, out)
    return out


@pytest.mark.parametrize("seat,seed", [(0, 3), (2, 21)])
def test_no_message_of_a_deal_shows_a_card_the_seat_may_not_see(client, seat, seed):
    """Every message sent while the deal is on names only the seat's own cards, the
    cards played so far and the declarations shown: never another hand's hidden card."""
    seen = []
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "new", "seat": seat, "seed": seed}))
        _play_out(ws, _until_person(ws, seen), seen, pick=1)
        ws.send_text(json.dumps({"type": "record"}))
        rec = _recv(ws)["record"]
    deal = replay_deal(rec)
    mine = set(rec["hands"][seat].split())
    cards_in_order = [format_card(c) for _, c in deal.plays]
    shown = set()
    if rec.get("declarations") and rec["declarations"]["winner"] is not None:
        for d in rec["declarations"]["seats"]:
            if d["declared"] and d["seat"] % 2 == rec["declarations"]["winner"]:
                shown |= set(d["cards"].split())
    checked = 0
    for m in seen:
        v = m["view"]
        if v["result"] is not None:                # the deal is over: every hand may show
            continue
        n_played = 4 * sum(v["tricks_won"]) + len(v["tricks"]["current"])
        allowed = mine | set(cards_in_order[:n_played]) | (shown if v["declarations"] else set())
        leaked = _card_tokens(m, set()) - allowed
        assert not leaked, f"message {m} shows hidden cards {leaked}"
        assert "hands" not in json.dumps(v)
        checked += 1
    assert checked >= 10


def test_bad_messages_get_an_error_and_change_nothing(client):
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "act", "action": "pass"}))
        assert "no game yet" in _recv(ws)["message"]
        ws.send_text(json.dumps({"type": "new", "seat": 7}))
        assert _recv(ws)["message"] == "seat: expected 0..3, got 7"
        ws.send_text(json.dumps({"type": "new", "partner": "randm"}))
        assert "unknown agent 'randm'" in _recv(ws)["message"]
        ws.send_text(json.dumps({"type": "new", "seed": 5}))
        view = _until_person(ws)
        assert view["phase"] == "auction"
        hidden = next(c for c in (format_card(c) for c in range(32)) if c not in view["hand"])
        legal = [a["text"] for a in view["legal"]]
        refused = next(a for a in ("surcoinche", "coinche", "capotS") if a not in legal)
        bad = ["{not json", json.dumps([1, 2]), json.dumps({"type": "dance"}),
               json.dumps({"type": "act"}), json.dumps({"type": "act", "action": "XYZ"}),
               json.dumps({"type": "act", "action": 500}),
               json.dumps({"type": "act", "action": hidden}),      # a card in the auction
               json.dumps({"type": "act", "action": refused}),     # not legal here
               json.dumps({"type": "next"})]
        expected = ["not a JSON message", "must be a JSON object with a \"type\"",
                    "unknown message type 'dance'", "missing field 'action'",
                    "action: invalid action 'XYZ'", "id 500 out of range",
                    "illegal", "illegal", "no next deal: the deal is not over"]
        for text, words in zip(bad, expected):
            ws.send_text(text)
            m = _recv(ws)
            assert m["type"] == "error" and words in m["message"], (text, m)
            ws.send_text(json.dumps({"type": "state"}))
            assert _recv(ws)["view"] == view            # nothing changed
        end = _play_out(ws, view)                     # the connection still plays
        assert end["result"] is not None
        ws.send_text(json.dumps({"type": "act", "action": "pass"}))
        assert "not your turn: the game is over" in _recv(ws)["message"]


# -------------------------------------------------------------------- replay
def test_replay_steps_through_every_position_of_a_record(client):
    deal, rec = _finished_record()
    r = client.post("/api/replay", json={"record": rec}).json()
    moves = r["deals"][0]["moves"]
    assert len(moves) == len(deal.history) and r["deals"][0]["play_starts"] == len(deal.auction)
    assert r["deals"][0]["scores"] == list(deal.scores)
    for step in (0, len(deal.auction), len(deal.auction) + 5, len(deal.history)):
        p = client.post("/api/position", json={"record": rec, "step": step}).json()
        assert p["step"] == step
        assert p == dict(table_view(deal_at(rec, 0, step)), step=step)
    hidden = client.post("/api/position", json={"record": rec, "step": 3, "show": [2]}).json()
    assert hidden["hands"][2] is not None and hidden["hands"][0] is None
    assert hidden["hand_sizes"] == [8, 8, 8, 8]


def test_replay_refuses_a_bad_record_or_step_with_its_reason(client):
    _, rec = _finished_record()
    r = client.post("/api/position", json={"record": rec, "step": 99})
    assert r.status_code == 400 and r.json()["error"].startswith("step: expected 0..")
    bad = dict(rec, plays=[rec["plays"][1]] + rec["plays"][1:])   # the second seat's card
    r = client.post("/api/replay", json={"record": bad})
    assert r.status_code == 400 and r.json()["error"].startswith("plays[0]")
    r = client.post("/api/replay", content=b"{oops")
    assert r.status_code == 400 and "not JSON" in r.json()["error"]


# ------------------------------------------------------------------ analysis
def test_the_analysis_rows_are_the_library_values(client):
    deal, rec = _finished_record(seed=12)
    for step in (len(deal.auction), len(deal.auction) + 6):       # trick 1; trick 2
        a = client.post("/api/analyse", json={"record": rec, "step": step, "worlds": 8,
                                              "seed": 3}).json()
        pos = deal_at(rec, 0, step)
        seat = pos.current_player
        assert a["seat"] == seat and a["phase"] == "play" and a["worlds"] == 8
        acts, dd = Solver().move_values(pos, "score")
        _, pts = Solver().move_values(pos, "points")
        pimc = make_agent("pimc:worlds=8")
        pimc.reset(seat, pos.rules, 3)
        p_acts, totals, n = pimc.card_values(PlayerView(pos, seat))
        nn = nn_values(pos, "nn", 3)
        rows = {r["action"]["id"]: r for r in a["rows"]}
        assert sorted(rows) == sorted(int(x) for x in pos.legal_actions())
        for x, v, p in zip(acts, dd, pts):
            assert rows[int(x)]["dd"] == v and rows[int(x)]["dd_points"] == p
        for x, t in zip(p_acts, totals):
            assert rows[int(x)]["pimc"] == pytest.approx(t / n)
        for x, v in nn.values.items():
            assert rows[x]["nn"] == pytest.approx(v)
        heuristic = make_agent("heuristic")
        heuristic.reset(seat, pos.rules, 3)
        from coinche_rl.actions import action_to_str
        assert a["choices"]["heuristic"] == action_to_str(heuristic.act(PlayerView(pos, seat)))
        assert a["choices"]["nn"] == action_to_str(nn.choice)
        assert "nn" in rows[nn.choice]["chosen_by"]


def test_the_auction_analysis_has_the_bidding_heads(client):
    deal, rec = _finished_record(seed=12)
    a = client.post("/api/analyse", json={"record": rec, "step": 0}).json()
    nn = nn_values(deal_at(rec, 0, 0), "nn", 0)
    assert a["phase"] == "auction" and a["nn_by"] == "net"
    rows = {r["action"]["id"]: r for r in a["rows"]}
    assert all(r["dd"] is None and r["pimc"] is None for r in rows.values())
    assert nn.ev and all(rows[x]["ev"] == pytest.approx(v) for x, v in nn.ev.items())
    assert all(rows[x]["p_made"] == pytest.approx(v) for x, v in nn.p_made.items())
    # sorted by the nn value, best first (the rows without one last)
    values = [r["nn"] for r in a["rows"]]
    assert a["sorted_by"] == "nn" and values == sorted(values, reverse=True)
    r = client.post("/api/analyse", json={"record": rec, "step": len(deal.history)})
    assert r.status_code == 400 and "the deal is over" in r.json()["error"]
    r = client.post("/api/analyse", json={"record": rec, "step": 0, "worlds": 0})
    assert r.json()["error"] == "worlds: expected 1..256, got 0"


def test_the_auction_analysis_has_the_hand_evaluation_of_each_bid(client):
    """Each bid's row has the Monte Carlo hand evaluation's expected score and P(made)
    (the analysis' worlds and seed, the auction so far); pass and coinche have none."""
    from coinche_rl.agents.evaluation import evaluate_hand
    from coinche_rl.web.analysis import EVAL_METHOD, bid_contract
    deal, rec = _finished_record(seed=12)
    step = 1                                       # after the first seat's action
    a = client.post("/api/analyse", json={"record": rec, "step": step, "worlds": 6,
                                          "seed": 5}).json()
    pos = deal_at(rec, 0, step)
    seat = pos.current_player
    ev = evaluate_hand(pos.rules, seat, pos.hands[seat], pos.dealer, samples=6, seed=5,
                       method=EVAL_METHOD, auction=pos.auction)
    assert a["evaluation"] == {"samples": 6, "method": "dd", "seed": 5}
    levels = ev.levels.tolist()
    bids = 0
    for r in a["rows"]:
        c = bid_contract(r["action"]["id"], pos)
        if c is None:
            assert r["mc_ev"] is None and r["mc_p_made"] is None
            continue
        j, k = ev.strains.index(c[1]), levels.index(c[0])
        assert r["mc_ev"] == pytest.approx(ev.expected_score[j, k])
        assert r["mc_p_made"] == pytest.approx(ev.p_make[j, k])
        bids += 1
    assert bids >= 30


def test_a_branch_plays_another_card_and_the_bots_finish_the_deal(client):
    deal, rec = _finished_record(seed=13)
    step = next(k for k in range(len(deal.auction) + 2, len(deal.history))
                if len(deal_at(rec, 0, k).legal_actions()) > 1)
    played = deal.history[step]
    pos = deal_at(rec, 0, step)
    other = next(int(a) for a in pos.legal_actions() if int(a) != played)
    body = {"record": rec, "step": step, "action": other, "agents": ["heuristic"] * 4, "seed": 1}
    new = client.post("/api/branch", json=body).json()["record"]
    branched = replay_deal(new)
    assert branched.is_terminal and branched.history[:step] == deal.history[:step]
    assert branched.history[step] == other
    assert client.post("/api/branch", json=body).json()["record"] == new     # seeded
    body["action"] = "7S" if "7S" not in [format_card(c) for c in cards_of(pos.hands[pos.current_player])] else "8S"
    r = client.post("/api/branch", json=body)
    assert r.status_code == 400 and "illegal card" in r.json()["error"]


# --------------------------------------------------------------- tournaments
def test_a_results_file_shows_its_tables_and_its_pairs_replay(tmp_path):
    out = tmp_path / "rr.jsonl"
    result = run_round_robin(["random", "heuristic", "heuristic:aggression=20"], 3, seed=2, out=str(out))
    with TestClient(create_app(records=None, results=[str(out)])) as c:
        assert c.get("/api/library").json()["results"] == [{"name": "rr.jsonl"}]
        t = c.get("/api/results/rr.jsonl").json()
        tables, warnings = summary_tables(result)
        # the speed column (deals/s of this run) is not in the file
        strip = [[row[:-1] for row in rows] if "deals/s" in h else rows for _, h, rows in tables]
        got = [[row[:-1] for row in x["rows"]] if "deals/s" in x["headers"] else x["rows"]
               for x in t["tables"]]
        assert [x["title"] for x in t["tables"]] == [title for title, _, _ in tables]
        assert got == strip and t["warnings"] == warnings
        assert len(t["pairs"]) == 9
        pair = t["pairs"][4]
        p = c.get(f"/api/results/rr.jsonl/{pair['run']}/{pair['i']}").json()
        assert p["same"] and p["stored"] == pair["scores"]
        for k, r in enumerate(p["records"]):
            d = replay_deal(r)
            assert d.is_terminal
        r = c.get("/api/results/nothere.jsonl")
        assert r.status_code == 400 and "no results file 'nothere.jsonl'" in r.json()["error"]


# ------------------------------------------------------------ command, meta
def test_meta_names_every_card_and_the_page_is_served(client):
    m = client.get("/api/meta").json()
    assert [c["text"] for c in m["cards"]] == [format_card(c) for c in range(32)]
    assert "heuristic" in m["agents"] and m["rules"] == "ffb"
    assert "nn" in m["agents"] and "colver:maxi" in m["agents"]     # the agents of its family
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200


def test_serve_without_the_web_extra_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setattr(web, "missing_extra", lambda: "starlette")
    assert cli.main(["serve"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "pip install -e '.[web]'" in err and "starlette" in err


# ------------------------------------------------------- belote for two players
TWO = ("belote_a_deux", "belote_decouverte")


def _two_record(preset="belote_a_deux", seed=5, specs=("heuristic", "heuristic")):
    from coinche_rl.two_player import TwoPlayerDeal
    for k in range(20):                        # the first deal of the seeds that is played
        deal = TwoPlayerDeal(preset, seed=seed + k, dealer=0)
        play_deal(deal, [make_agent(s, "two") for s in specs], seeds=[1, 2])
        if not deal.is_void:
            return deal, deal_to_record(deal)
    raise AssertionError("no played deal")


def _position(deal, k):
    """``deal`` after its first ``k`` actions."""
    from coinche_rl.two_player import TwoPlayerDeal
    pos = TwoPlayerDeal(deal.rules, deck=deal.deck, dealer=deal.dealer)
    for a in deal.history[:k]:
        pos.apply(a)
    return pos


@pytest.mark.parametrize("preset", TWO)
def test_a_two_player_game_over_the_socket_is_saved_and_replays(client, records, preset):
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "new", "rules": preset, "seat": 1,
                                 "opponents": "random", "seed": 3, "deals": 2}))
        view = _until_person(ws)
        assert view["n_players"] == 2 and view["agents"] == ["random", None]
        assert len(view["hand_sizes"]) == 2 and view["side_word"] == "player"
        view = _play_out(ws, view)
        assert view["waiting"] == "next" and view["result"]["scores"] == view["match"]["scores"]
        ws.send_text(json.dumps({"type": "next"}))
        view = _play_out(ws, _until_person(ws))
        assert view["waiting"] == "over"
        ws.send_text(json.dumps({"type": "record"}))
        m = _recv(ws)
    rec = m["record"]
    assert rec["format"] == "coinche-rl/match" and rec["rules"]["preset"] == preset
    replayed = replay(rec)
    assert len(replayed["deals"]) == 2 and replayed["scores"] == view["match"]["scores"]
    assert json.loads((records / m["name"]).read_text()) == rec
    # the records folder lists it, and the replay opens it (it answered HTTP 500 before)
    assert m["name"] in [r["name"] for r in client.get("/api/library").json()["records"]]
    r = client.post("/api/replay", json={"record": client.get(f"/api/records/{m['name']}").json()})
    assert r.status_code == 200 and r.json()["n_players"] == 2 and len(r.json()["deals"]) == 2


def test_a_two_player_match_is_played_to_its_target(client):
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "new", "rules": "belote_decouverte:target=150",
                                 "opponents": "heuristic", "seed": 6, "match": True}))
        view = _play_out(ws, _until_person(ws))
        while view["waiting"] == "next":
            ws.send_text(json.dumps({"type": "next"}))
            view = _play_out(ws, _until_person(ws))
        assert view["waiting"] == "over" and view["match"]["mode"] == "match"
        assert view["match"]["winner"] in (0, 1) and max(view["match"]["scores"]) >= 150
        ws.send_text(json.dumps({"type": "record"}))
        rec = _recv(ws)["record"]
    assert replay(rec)["scores"] == view["match"]["scores"]


@pytest.mark.parametrize("preset,seat,seed", [("belote_a_deux", 0, 3), ("belote_a_deux", 1, 8),
                                              ("belote_decouverte", 0, 4)])
def test_no_two_player_message_shows_a_covered_card_or_the_other_hand(client, preset, seat, seed):
    """Every message sent while the deal is on names only what the player's view holds:
    his hand, both players' face-up cards, the cards played, the retourne, the cards of
    the other hand the rules make public; never a face-down card (unknown to both, his
    own included), never the rest of the other hand."""
    seen = []
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "new", "rules": preset, "seat": seat, "seed": seed}))
        _play_out(ws, _until_person(ws, seen), seen, pick=1)
        ws.send_text(json.dumps({"type": "record"}))
        rec = _recv(ws)["record"]
    deal = replay_deal(rec)
    other = 1 - seat
    checked = 0
    for m in seen:
        v = m["view"]
        if v["result"] is not None:                # the deal is over: every card may show
            continue
        k = len(v["auction"]) + 2 * sum(v["tricks_won"]) + len(v["tricks"]["current"])
        pos = _position(deal, k)
        pv = pos.view(seat)
        played = 0
        for _, c in pos.plays:
            played |= 1 << c
        allowed = set(cards_of(pv.hand | pv.known_other | pv.table_up[0] | pv.table_up[1]
                               | played | 1 << pv.retourne))
        allowed = {format_card(c) for c in allowed}
        hidden = {format_card(c) for c in cards_of(pos.table_down[0] | pos.table_down[1]
                                                   | (pos.hands[other] & ~pv.known_other))}
        tokens = _card_tokens(m, set())
        assert not tokens & hidden, f"message {m} shows covered or hidden cards {tokens & hidden}"
        assert tokens <= allowed, f"message {m} shows {tokens - allowed}"
        assert "hands" not in json.dumps(v)
        assert v["hand_sizes"] == [bin(h).count("1") for h in pos.hands]
        assert [len(row) for row in v["table"]] == [len(row) for row in pos.stacks]
        checked += 1
    assert checked >= 16


def test_bad_two_player_messages_get_an_error_and_change_nothing(client):
    with client.websocket_connect("/ws") as ws:
        for msg, words in (({"seat": 2}, "seat: expected 0..1, got 2"),
                           ({"partner": "random"}, "has no partner"),
                           ({"opponents": ["random", "random"]}, "has one opponent"),
                           ({"opponents": "colver:maxi"}, "colver:maxi"),
                           ({"rules": "belote_a_deux:target=-5"}, "rules:")):
            ws.send_text(json.dumps(dict({"type": "new", "rules": "belote_a_deux"}, **msg)))
            m = _recv(ws)
            assert m["type"] == "error" and words in m["message"], (msg, m)
        ws.send_text(json.dumps({"type": "new", "rules": "belote_a_deux", "seed": 2,
                                 "opponents": "random"}))
        view = _until_person(ws)
        while view["phase"] != "play" and view["waiting"] == "you":   # to the first card
            ws.send_text(json.dumps({"type": "act", "action": view["legal"][-1]["id"]}))
            view = _until_person(ws)
        assert view["phase"] == "play" and view["waiting"] == "you"
        mine = set(view["hand"]) | {st["up"] for st in view["table"][view["seat"]] if st["up"]}
        foreign = next(format_card(c) for c in range(32) if format_card(c) not in mine)
        for text, words in ((json.dumps({"type": "act", "action": foreign}), "neither in your hand"),
                            (json.dumps({"type": "act", "action": "take"}), "illegal"),
                            (json.dumps({"type": "next"}), "no next deal")):
            ws.send_text(text)
            m = _recv(ws)
            assert m["type"] == "error" and words in m["message"], (text, m)
            ws.send_text(json.dumps({"type": "state"}))
            assert _recv(ws)["view"] == view            # nothing changed
        assert _play_out(ws, view)["result"] is not None


@pytest.mark.parametrize("preset", TWO)
def test_a_two_player_record_replays_as_the_game_shows_it(client, preset):
    deal, rec = _two_record(preset)
    r = client.post("/api/replay", json={"record": rec}).json()
    assert r["n_players"] == 2 and len(r["deals"][0]["moves"]) == len(deal.history)
    start = r["deals"][0]["play_starts"]
    assert start == len(rec["prise"]) and r["deals"][0]["scores"] == list(deal.scores)
    for step in (0, start, start + 3, len(deal.history)):
        p = client.post("/api/position", json={"record": rec, "step": step}).json()
        assert p == dict(table_view(deal_at(rec, 0, step)), step=step)
        pos = _position(deal, step)
        # the table as the game shows it: face-up cards; a covered card is never named
        assert p["table"] == [[{"up": format_card(u) if u >= 0 else None, "down": d >= 0}
                               for u, d in row] for row in pos.stacks]
        down = {format_card(c) for c in cards_of(pos.table_down[0] | pos.table_down[1])}
        assert not _card_tokens(p["table"], set()) & down
    one = client.post("/api/position", json={"record": rec, "step": start, "show": [1]}).json()
    assert one["hands"][0] is None and one["hands"][1] is not None
    r = client.post("/api/position", json={"record": rec, "step": 1, "show": [2]})
    assert r.status_code == 400 and "seats 0..1" in r.json()["error"]


def _assert_nn_columns(a, pos, seed, choice=True):
    """The analysis ``a`` of ``pos`` shows the ``nn`` agent's own values and choice (the
    library's, for the seat to act; its choice where ``choice``: a position with no
    move before it), or, where nn cannot play these rules (no weights
    shipped for the preset), no nn value, no nn choice and a note saying why."""
    seat = pos.current_player
    nn = make_agent("nn", pos.rules)
    try:
        nn.reset(seat, pos.rules, seed)
        values = nn.action_values(pos.view(seat))
    except (ValueError, OSError) as e:
        assert all(r["nn"] is None for r in a["rows"]) and a["choices"].get("nn") is None
        assert f"nn: {e}" in a["notes"]
        return
    rows = {r["action"]["id"]: r for r in a["rows"]}
    assert a["nn_by"] == values.by
    assert {k: r["nn"] for k, r in rows.items() if r["nn"] is not None} == pytest.approx(
        values.values)
    if not choice:
        return
    chooser = make_agent("nn", pos.rules)
    chooser.reset(seat, pos.rules, seed)
    from coinche_rl.actions import action_to_str
    assert a["choices"]["nn"] == action_to_str(chooser.act(pos.view(seat)))


def test_the_two_player_analysis_rows_are_the_library_values(client):
    from coinche_rl.agents.evaluation import evaluate_view
    from coinche_rl.solver_two import TwoPlayerSolver
    from coinche_rl.web.analysis import SEARCH_TRICKS, play_start
    deal, rec = _two_record("belote_a_deux")
    # the prise: the hand evaluation of each option (heuristic play), and the shipped
    # prise network's values (sorted by them, as the four-player auction by the bidding net's)
    a = client.post("/api/analyse", json={"record": rec, "step": 0, "worlds": 8,
                                          "seed": 2}).json()
    ev = evaluate_view(deal_at(rec, 0, 0).view(a["seat"]), samples=8, seed=2)
    rows = {r["action"]["id"]: r for r in a["rows"]}
    assert 0 in ev.action_values()                      # the pass (action 0)
    for act, (e, _) in ev.action_values().items():
        assert rows[act]["mc_ev"] == pytest.approx(e)
    _assert_nn_columns(a, deal_at(rec, 0, 0), 2)
    assert a["sorted_by"] == "nn" and a["nn_by"] == "net"
    assert a["evaluation"]["method"] == "heuristic"
    # the first tricks: no search, and the page is told from when
    first = play_start(deal)
    a = client.post("/api/analyse", json={"record": rec, "step": first}).json()
    assert all(r["dd_points"] is None and r["pimc"] is None for r in a["rows"])
    assert any(f"from trick {16 - SEARCH_TRICKS + 1}" in n for n in a["notes"])
    assert "heuristic" in a["choices"]
    # a searched trick: the solver's values (every card known) and PIMC's (his view)
    step = next(k for k in range(first + 2 * (16 - SEARCH_TRICKS), len(deal.history))
                if len(_position(deal, k).legal_actions()) > 1)
    a = client.post("/api/analyse", json={"record": rec, "step": step, "worlds": 8,
                                          "seed": 3}).json()
    pos = deal_at(rec, 0, step)
    seat = pos.current_player
    dd = TwoPlayerSolver().card_values(pos.state)
    pimc = make_agent("pimc:worlds=8,solve_from=0", "two")
    pimc.reset(seat, pos.rules, 3)
    cards, sums, _ = pimc.card_values(pos.view(seat))
    rows = {r["action"]["id"]: r for r in a["rows"]}
    assert sorted(rows) == sorted(pos.legal_actions()) and a["worlds"] == 8
    for c, s in zip(cards, sums):
        assert rows[c]["dd_points"] == dd[c - 75] and rows[c]["pimc"] == pytest.approx(s / 8)
        assert rows[c]["dd"] is None
    _assert_nn_columns(a, pos, 3, choice=False)
    assert a["pimc_unit"] == "card points" and a["sorted_by"] == "pimc"
    heuristic = make_agent("heuristic", "two")
    heuristic.reset(seat, pos.rules, 3)
    from coinche_rl.actions import action_to_str
    assert a["choices"]["heuristic"] == action_to_str(heuristic.act(pos.view(seat)))


def test_a_two_player_branch_plays_another_card_to_the_end(client):
    deal, rec = _two_record("belote_decouverte")
    from coinche_rl.web.analysis import play_start
    step = next(k for k in range(play_start(deal), len(deal.history))
                if len(_position(deal, k).legal_actions()) > 1)
    other = next(a for a in _position(deal, step).legal_actions() if a != deal.history[step])
    body = {"record": rec, "step": step, "action": other, "agents": ["heuristic", "random"],
            "seed": 1}
    new = client.post("/api/branch", json=body).json()["record"]
    branched = replay_deal(new)
    assert branched.is_terminal and branched.history[:step] == deal.history[:step]
    assert branched.history[step] == other
    body["agents"] = ["heuristic"] * 4
    r = client.post("/api/branch", json=body)
    assert r.status_code == 400 and "a list of 2 agent specs" in r.json()["error"]


def test_a_two_player_results_file_shows_its_pairs_named_by_seat(tmp_path):
    from coinche_rl.arena import run_round_robin
    out = tmp_path / "two.jsonl"
    run_round_robin(["random", "heuristic"], 3, "belote_a_deux", seed=2, out=str(out))
    with TestClient(create_app("belote_a_deux", records=None, results=[str(out)])) as c:
        t = c.get("/api/results/two.jsonl").json()
        assert len(t["pairs"]) == 3
        pair = t["pairs"][1]
        p = c.get(f"/api/results/two.jsonl/{pair['run']}/{pair['i']}").json()
        assert p["same"] and p["stored"] == pair["scores"]
        x, y = pair["x"], pair["y"]
        assert p["seatings"] == [[x, y], [y, x]]
        assert all(replay_deal(r).is_terminal for r in p["records"])


@pytest.mark.parametrize("preset", ["ffb", "classic", "belote_a_deux", "belote_decouverte"])
def test_serve_serves_every_preset(preset, monkeypatch):
    """``coinche-rl serve --rules PRESET`` starts for every preset (it refused the
    two-player ones); the page starts with those rules and their agents."""
    import uvicorn
    served = {}
    monkeypatch.setattr(web, "warm_up", lambda rules=None, say=print: 0.0)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.update(app=app, **kw))
    assert cli.main(["serve", "--rules", preset, "--records", ""]) == 0
    with TestClient(served["app"]) as c:
        m = c.get("/api/meta").json()
    assert m["rules"] == preset and m["families"][preset]["n_players"] == (2 if "belote" in preset else 4)
    from coinche_rl.agents import available_agents
    assert m["agents"] == available_agents(get_rules(preset))
    assert {"heuristic", "nn", "pimc", "random"} <= set(m["agents"])
