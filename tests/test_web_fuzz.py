"""The page's server under malformed and hostile input (``coinche-rl serve``,
:mod:`coinche_rl.web.app`), property-based: every bad socket message of a game in
progress (not JSON, nested too deep, too large, binary, not an object, an unknown type,
wrong types, out-of-range or illegal actions, an action out of turn, a bad new game)
gets an error reply that says what was wrong (never an internal error), and the game is
as it was, and so is a game on another socket: the same view, the same record of its
finished deals, the same file in the records folder; and the connection plays on. The HTTP endpoints answer a bad body with
a 400 and its reason, never a server error."""

from __future__ import annotations

import copy
import json

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("httpx2", reason="the dev extra's httpx2 drives Starlette's TestClient")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from coinche_rl import actions as A  # noqa: E402
from coinche_rl.agents import make_agent, play_deal  # noqa: E402
from coinche_rl.game import Deal  # noqa: E402
from coinche_rl.records import deal_to_record  # noqa: E402
from coinche_rl.rules import parse_rules  # noqa: E402
from coinche_rl.web.app import MAX_ERROR, MAX_MESSAGE  # noqa: E402
from coinche_rl.web.play import ProtocolError, parse_person_action, parse_settings  # noqa: E402
from web_client import client, records, recv as _recv  # noqa: E402,F401

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
FFB = parse_rules("ffb")


def _until_person(ws):
    while True:
        m = _recv(ws)
        assert m["type"] == "state", m
        if m["view"]["waiting"] != "bots":
            return m["view"]


class Game:
    """A game of two deals over one socket: the first deal played and saved, the
    second in its play with the person to choose among several cards."""

    def __init__(self, ws, records, first_seed=1):
        self.ws = ws
        self.others = []                           # games on other sockets meanwhile
        for seed in range(first_seed, first_seed + 40):
            ws.send_text(json.dumps({"type": "new", "seed": seed, "deals": 2, "seat": 0}))
            view = _until_person(ws)
            while view["waiting"] == "you":        # the first deal: the first legal action
                ws.send_text(json.dumps({"type": "act", "action": view["legal"][0]["id"]}))
                view = _until_person(ws)
            ws.send_text(json.dumps({"type": "next"}))
            view = _until_person(ws)
            while view["waiting"] == "you" and view["phase"] == "auction":
                ws.send_text(json.dumps({"type": "act", "action": "pass"}))
                view = _until_person(ws)
            if view["waiting"] == "you" and view["phase"] == "play" and len(view["legal"]) > 1 \
                    and len(view["legal"]) < len(view["hand"]):
                break
        else:
            raise AssertionError("no seed gave a deal in play with a card refused")
        self.view = view
        self.record = self.ask_record()
        self.name = self.record_name()
        self.saved = (records / self.name).read_bytes()
        self.legal_ids = {a["id"] for a in view["legal"]}

    def ask_record(self):
        self.ws.send_text(json.dumps({"type": "record"}))
        m = _recv(self.ws)
        assert m["type"] == "record", m
        return m["record"]

    def record_name(self):
        self.ws.send_text(json.dumps({"type": "state"}))
        return _recv(self.ws)["record_name"]

    def unchanged(self, records):
        self.ws.send_text(json.dumps({"type": "state"}))
        state = _recv(self.ws)
        assert state["view"] == self.view and state["record_name"] == self.name
        assert self.ask_record() == self.record
        assert (records / self.name).read_bytes() == self.saved

    def check_refused(self, send, records):
        """``send()`` sends one bad message: the reply is a specific error, and this
        game and the others are unchanged."""
        send()
        m = _recv(self.ws)
        assert m["type"] == "error", m
        msg = m["message"]
        assert isinstance(msg, str) and msg and len(msg) <= MAX_ERROR
        assert not msg.startswith("internal error"), msg
        for g in [self] + self.others:
            g.unchanged(records)
        return msg


@pytest.fixture(scope="module")
def game(client, records):
    with client.websocket_connect("/ws") as ws, client.websocket_connect("/ws") as other:
        g = Game(ws, records)
        g.others.append(Game(other, records, first_seed=50))
        assert g.others[0].name != g.name
        yield g


# ------------------------------------------------------------------ strategies
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70),
                         st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=30))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)
hostile_actions = st.one_of(json_values, st.integers(-10 ** 30, 10 ** 30),
                            st.sampled_from(["pass", "80H", "coinche", "surcoinche", "capotS",
                                             "take", "declare", "JH", "7S", "AC", " ", "\x00",
                                             "x" * 10000, "80", "H", "-1", "1e3"]),
                            st.integers(0, A.N_ACTIONS - 1))


def _is_legal_now(action, legal_ids) -> bool:
    try:
        return parse_person_action(action, FFB) in legal_ids
    except ProtocolError:
        return False


# --------------------------------------------------------------- the socket
def test_text_that_is_not_a_json_message_is_refused(game, records):
    for text, words in [("{not json", "not a JSON message"), ("", "not a JSON message"),
                        ("[" * 100000 + "]" * 100000, "nested too deep"),
                        (json.dumps({"type": "state", "pad": "x" * MAX_MESSAGE}), "too large"),
                        ("NaN", "JSON object"), (json.dumps([1, 2]), "JSON object"),
                        (json.dumps({"type": 3}), "JSON object")]:
        assert words in game.check_refused(lambda: game.ws.send_text(text), records)
    msg = game.check_refused(lambda: game.ws.send_bytes(b'{"type": "state"}'), records)
    assert "binary" in msg


@FUZZ
@given(text=st.text(max_size=200))
def test_any_text_either_is_a_known_message_or_is_refused(game, records, text):
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        msg = None
    if isinstance(msg, dict) and msg.get("type") in ("new", "act", "next", "state", "record"):
        return                                   # a well-formed message: the other tests
    game.check_refused(lambda: game.ws.send_text(text), records)


@FUZZ
@given(kind=st.one_of(json_values, st.text(max_size=12)), extra=st.dictionaries(
    st.text(max_size=8), json_values, max_size=3))
def test_an_unknown_message_type_is_refused(game, records, kind, extra):
    if kind in ("new", "act", "next", "state", "record"):
        return
    msg = dict(extra, type=kind)
    game.check_refused(lambda: game.ws.send_text(json.dumps(msg)), records)


@FUZZ
@given(action=hostile_actions, extra=st.dictionaries(st.sampled_from(["seat", "pad", "x"]),
                                                     json_values, max_size=2))
def test_an_illegal_or_malformed_action_is_refused(game, records, action, extra):
    if _is_legal_now(action, game.legal_ids):
        return                                   # a legal action would be played
    msg = {**extra, "type": "act", "action": action}
    game.check_refused(lambda: game.ws.send_text(json.dumps(msg)), records)


def test_the_refusals_name_their_reason(game, records):
    hand = set(game.view["hand"])
    refused_card = next(a for a in game.view["hand"]
                        if A.parse_action(a, FFB) not in game.legal_ids)
    hidden = next(c for c in ("7S 8S 9S TS JS QS KS AS 7H 8H 9H TH JH QH KH AH".split())
                  if c not in hand)
    cases = [({"type": "act"}, "missing field 'action'"),
             ({"type": "act", "action": 500}, "out of range"),
             ({"type": "act", "action": -1}, "out of range"),
             ({"type": "act", "action": True}, "expected an action id"),
             ({"type": "act", "action": "80H"}, "illegal"),           # the auction is over
             ({"type": "act", "action": hidden}, "illegal"),          # another seat's card
             ({"type": "act", "action": refused_card}, "illegal"),    # not following suit
             ({"type": "next"}, "no next deal: the deal is not over"),
             ({"type": "new", "seat": 4}, "seat: expected 0..3"),
             ({"type": "new", "seat": "0"}, "seat: expected 0..3"),
             ({"type": "new", "partner": "randm"}, "unknown agent 'randm'"),
             ({"type": "new", "opponents": ["a", "b", "c"]}, "opponents"),
             ({"type": "new", "rules": "ffb:target=-5"}, "rules"),
             ({"type": "new", "rules": "no-such-preset"}, "rules"),
             ({"type": "new", "deals": 0}, "deals: expected 1..1000"),
             ({"type": "new", "match": "yes"}, "match: expected true or false"),
             ({"type": "new", "pace": 1e9}, "pace: expected seconds"),
             ({"type": "new", "cheat": True}, "unknown field(s) 'cheat'"),
             ({"type": "new", "partner": "pimc:worlds=0"}, "worlds")]
    for msg, words in cases:
        got = game.check_refused(lambda: game.ws.send_text(json.dumps(msg)), records)
        assert words in got, (msg, got)


@FUZZ
@given(fields=st.dictionaries(
    st.sampled_from(["seat", "partner", "opponents", "rules", "seed", "deals", "match",
                     "dealer", "pace", "bogus"]), json_values, min_size=1, max_size=4))
def test_a_bad_new_game_is_refused_and_the_game_goes_on(game, records, fields):
    msg = dict(fields, type="new")
    try:
        pace = fields.get("pace", 0)
        parse_settings({k: v for k, v in msg.items() if k != "pace"}, FFB)
        if isinstance(pace, (int, float)) and not isinstance(pace, bool) and 0 <= pace <= 3:
            return                               # a valid new game would replace this one
    except ProtocolError:
        pass
    game.check_refused(lambda: game.ws.send_text(json.dumps(msg)), records)


def test_after_the_fuzzing_the_game_plays_to_its_end(game, records):
    view = game.view
    while view["waiting"] == "you":
        game.ws.send_text(json.dumps({"type": "act", "action": view["legal"][0]["id"]}))
        view = _until_person(game.ws)
    assert view["waiting"] == "over" and view["match"]["deals_played"] == 2
    game.view, game.record = view, game.ask_record()
    game.saved = (records / game.name).read_bytes()
    for msg, words in [({"type": "act", "action": "pass"}, "not your turn: the game is over"),
                       ({"type": "act", "action": "7S"}, "not your turn"),
                       ({"type": "next"}, "no next deal: the game is over")]:
        assert words in game.check_refused(lambda: game.ws.send_text(json.dumps(msg)), records)
    saved = json.loads((records / game.name).read_text())
    assert len(saved["deals"]) == 2 and saved["deals"][0] == game.record["deals"][0]


# ------------------------------------------------------------------- HTTP
@pytest.fixture(scope="module")
def finished():
    deal = Deal("ffb", seed=12, dealer=3)
    play_deal(deal, [make_agent("heuristic") for _ in range(4)], seeds=[1, 2, 3, 4])
    return deal, deal_to_record(deal)


def _mutate(rec, data):
    """The record with one field replaced, dropped or cut short."""
    rec = copy.deepcopy(rec)
    key = data.draw(st.sampled_from(sorted(rec)))
    how = data.draw(st.sampled_from(["replace", "drop", "cut"]))
    if how == "drop":
        del rec[key]
    elif how == "cut" and isinstance(rec[key], (list, str)) and rec[key]:
        rec[key] = rec[key][:data.draw(st.integers(0, len(rec[key]) - 1))]
    else:
        rec[key] = data.draw(json_values)
    return rec


def _bad_request(r):
    assert r.status_code == 400, (r.status_code, r.text[:300])
    err = r.json()["error"]
    assert isinstance(err, str) and err and len(err) <= MAX_ERROR
    return err


@FUZZ
@given(data=st.data())
def test_a_mutated_record_is_replayed_or_refused_with_its_reason(client, finished, data):
    deal, rec = finished
    bad = _mutate(rec, data)
    for path, body in (("/api/replay", {"record": bad}),
                       ("/api/position", {"record": bad, "step": data.draw(
                           st.integers(0, len(deal.history)))})):
        r = client.post(path, json=body)
        if r.status_code != 200:
            _bad_request(r)


@FUZZ
@given(data=st.data())
def test_bad_fields_of_an_analysis_a_branch_or_a_position_are_refused(client, finished, data):
    deal, rec = finished
    n, lead = len(deal.history), len(deal.auction)

    def bad_int(ok):
        return json_values.filter(lambda v: isinstance(v, bool) or not isinstance(v, int)
                                  or not ok(v))
    path = data.draw(st.sampled_from(["/api/analyse", "/api/branch", "/api/position"]))
    body, wrong = {"record": rec, "deal": 0, "step": lead}, {
        "deal": st.one_of(bad_int(lambda v: v == 0), st.integers(1, 10)),
        "step": st.one_of(bad_int(lambda v: 0 <= v < n), st.integers(n + 1, n + 5),
                          st.integers(-5, -1)),
        "seed": st.one_of(bad_int(lambda v: v >= 0), st.integers(-10 ** 20, -1))}
    if path == "/api/analyse":
        body.update(worlds=2, seed=0, agents=["heuristic"])
        wrong["worlds"] = st.one_of(bad_int(lambda v: 1 <= v <= 256), st.integers(257, 10 ** 6))
        wrong["agents"] = json_values.filter(lambda v: v is not None and not (
            isinstance(v, list) and all(isinstance(s, str) and s.strip() for s in v)))
    elif path == "/api/branch":
        body.update(action=deal.history[lead], agents=["heuristic"] * 4, seed=0)
        wrong["agents"] = json_values.filter(lambda v: not (
            isinstance(v, list) and len(v) == 4 and all(isinstance(s, str) for s in v)))
        wrong["action"] = st.one_of(json_values.filter(lambda v: not isinstance(v, str)),
                                    st.integers(A.N_ACTIONS, 10 ** 9), st.integers(-9, -1))
    else:
        body.update(show="all")
        del wrong["seed"]
        wrong["step"] = st.one_of(bad_int(lambda v: 0 <= v <= n), st.integers(n + 1, n + 5))
        wrong["show"] = json_values.filter(lambda v: v != "all" and not (
            isinstance(v, list) and all(isinstance(s, int) and not isinstance(s, bool)
                                        and 0 <= s < 4 for s in v)))
    key = data.draw(st.sampled_from(sorted(wrong)))
    body[key] = data.draw(wrong[key])
    _bad_request(client.post(path, json=body))


def test_bad_bodies_are_refused_with_their_reason(client, finished):
    _, rec = finished
    for content, words in [(b"{oops", "not JSON"), (b"[" * 100000, "not JSON"),
                           (b" " * (MAX_MESSAGE + 1), "too large"), (b"[]", "JSON object"),
                           (b"\xff\xfe", "not JSON")]:
        assert words in _bad_request(client.post("/api/replay", content=content))
    assert "missing field 'record'" in _bad_request(client.post("/api/position", json={}))
    assert _bad_request(client.post("/api/branch", json={
        "record": rec, "step": 0, "action": "pass", "agents": 5}))
    # a deal record's one deal is 0, not a value equal to it (hypothesis found False)
    for index in (False, 0.0):
        assert "deal: a deal record holds deal 0 only" in _bad_request(
            client.post("/api/analyse", json={"record": rec, "deal": index, "step": 0}))
