"""Game records: save / load / replay, corrupted records, and matches (including the
gather-cut-deal variant without a shuffle between deals)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl.cards import FULL_DECK, format_card, format_hand, parse_hand, popcount
from coinche_rl.game import Deal, IllegalActionError, Match
from coinche_rl.records import (DEAL_FORMAT, MATCH_FORMAT, VERSION, RecordError,
                                deal_to_record, load_record, match_to_record, replay,
                                replay_deal, replay_match, save_record)
from coinche_rl.rules import RuleSet, get_rules


# --------------------------------------------------------------------- helpers
def policy(game, rng: np.random.Generator, pass_prob: float = 0.6) -> int:
    """Seeded random legal policy: in the auction pass with ``pass_prob``, else any
    legal action; in play any legal card."""
    legal = game.legal_actions()
    if legal[0] == A.PASS and rng.random() < pass_prob:
        return A.PASS
    return legal[int(rng.integers(len(legal)))]


def mild_policy(game, rng: np.random.Generator, pass_prob: float = 0.7) -> int:
    """Like :func:`policy` but bids only the lowest legal numeric bid (no coinche, no
    capot), so matches last several deals."""
    legal = game.legal_actions()
    if legal[0] == A.PASS:
        if rng.random() < pass_prob:
            return A.PASS
        bids = [a for a in legal if A.is_bid(a)]
        if bids:
            return bids[0]
        return A.PASS
    return legal[int(rng.integers(len(legal)))]


def play(game, seed: int, pol=policy):
    rng = np.random.default_rng(seed)
    while not game.is_terminal:
        game.apply(pol(game, rng))
    return game


def find_deal(pred, rules="ffb", start=0):
    """The first seeded random deal (seed >= start) that satisfies ``pred``."""
    for seed in range(start, start + 500):
        d = play(Deal(rules, seed=seed), seed)
        if pred(d):
            return d
    raise AssertionError("no deal found")


@pytest.fixture(scope="module")
def good_deal() -> Deal:
    """A finished deal with a contract, declarations scored and a bid after the first."""
    def ok(d):
        return (not d.is_void and d.declaration_winner is not None
                and sum(A.is_bid(a) for a in d.auction) >= 2)
    return find_deal(ok)


@pytest.fixture
def deal_rec(good_deal) -> dict:
    return json.loads(json.dumps(deal_to_record(good_deal)))


@pytest.fixture(scope="module")
def good_match() -> Match:
    """A finished match of several deals."""
    for seed in range(100):
        m = play(Match("ffb", target=1000, seed=seed), seed, mild_policy)
        if len(m.deals) >= 4:
            return m
    raise AssertionError("no long match found")


@pytest.fixture
def match_rec(good_match) -> dict:
    return json.loads(json.dumps(match_to_record(good_match)))


def raises_record_error(rec, *fragments, fn=replay_deal):
    with pytest.raises(RecordError) as ei:
        fn(rec)
    msg = str(ei.value)
    for f in fragments:
        assert f in msg, f"{f!r} not in {msg!r}"
    return msg


# ----------------------------------------------------------- save, load, replay
def test_save_load_roundtrip_deal(tmp_path, good_deal):
    path = tmp_path / "deal.json"
    save_record(good_deal, str(path))
    rec = load_record(str(path))
    assert rec == deal_to_record(good_deal)
    assert rec["format"] == DEAL_FORMAT and rec["version"] == VERSION
    assert replay(str(path)) == good_deal
    assert replay_deal(rec) == good_deal
    # a dict record is saved as is
    path2 = tmp_path / "deal2.json"
    save_record(rec, str(path2))
    assert load_record(str(path2)) == rec
    assert json.loads(path2.read_text(encoding="utf-8")) == rec


def test_save_load_roundtrip_match(tmp_path, good_match):
    path = tmp_path / "match.json"
    save_record(good_match, str(path))
    rec = load_record(str(path))
    assert rec == match_to_record(good_match)
    assert rec["format"] == MATCH_FORMAT
    out = replay(str(path))
    assert out["scores"] == good_match.scores
    assert out["winner"] == good_match.winner
    assert all(a == b for a, b in zip(out["deals"], good_match.deals))
    assert len(out["deals"]) == len(good_match.deals)


def test_good_deal_record_replays(deal_rec, good_deal):
    d = replay_deal(deal_rec)
    assert d == good_deal
    assert d.is_terminal
    assert d.scores == tuple(deal_rec["result"]["scores"])
    assert deal_rec["contract"]["taker"] == d.contract.taker


def test_cli_random_deal_seed_3_record_replays(tmp_path, capsys):
    """The record written by `coinche-rl random-deal --seed 3` replays, as does every
    stored field of it."""
    from coinche_rl.cli import main
    path = tmp_path / "r.json"
    assert main(["random-deal", "--seed", "3", "-o", str(path)]) == 0
    rec = load_record(str(path))
    d = replay_deal(rec)
    assert d.is_terminal
    assert deal_to_record(d) == rec


def test_forced_contract_record_replays():
    deal = Deal("ffb_sa_ta", seed=9).with_contract(120, 5, taker=2, coinche=1)
    play(deal, 9)
    rec = deal_to_record(deal)
    assert rec["contract_given"] == {"value": 120, "strain": "AT", "coinche": 1, "taker": 2}
    assert rec["auction"] == []
    assert replay_deal(rec) == deal
    bad = copy.deepcopy(rec)
    bad["contract_given"]["strain"] = "XX"
    raises_record_error(bad, "contract_given: invalid strain 'XX': expected one of S H D C NT AT")
    bad["contract_given"]["strain"] = 5                     # a record writes the strain's text
    raises_record_error(bad, "contract_given: strain: expected its text (S H D C NT AT), got 5")
    bad = copy.deepcopy(rec)
    bad["rules"]["preset"] = "ffb"                           # no AT contract under ffb
    raises_record_error(bad, "contract_given: strain 'AT' not allowed by rules 'ffb': the "
                             "strains are S H D C")


def test_void_deal_record_replays():
    d = find_deal(lambda d: d.is_void)
    rec = deal_to_record(d)
    assert rec["result"]["void"] is True and rec["contract"] is None
    assert replay_deal(rec) == d


def test_unfinished_deal_record_replays():
    d = Deal("ffb", seed=5)
    rng = np.random.default_rng(5)
    while d.phase != "play":
        d.apply(policy(d, rng, 0.3))
    for _ in range(6):
        d.apply(policy(d, rng))
    rec = deal_to_record(d)
    assert "result" not in rec
    assert replay_deal(rec) == d


# ------------------------------------------------------------ corrupted deals
def test_a_record_cut_short_with_its_result_is_refused(deal_rec, tmp_path, capsys):
    """A deal record whose plays were cut to 10 cards but which still carries its final
    result used to replay as OK (issue 15): the stored result was never compared."""
    cut = copy.deepcopy(deal_rec)
    cut["plays"] = cut["plays"][:10]
    raises_record_error(cut, "result", "cut short", "10 cards")
    # the auction cut short too: the stored contract is already compared
    cut = copy.deepcopy(deal_rec)
    cut["auction"] = cut["auction"][:1]
    cut["plays"] = []
    raises_record_error(cut, "contract", "replay gives None")
    # the command line exits non-zero with the field named
    from coinche_rl.cli import main
    path = tmp_path / "cut.json"
    cut = copy.deepcopy(deal_rec)
    cut["plays"] = cut["plays"][:10]
    path.write_text(json.dumps(cut))
    assert main(["replay", str(path)]) != 0
    assert "result" in capsys.readouterr().err
    # an unfinished record without the later fields still replays
    ok = copy.deepcopy(deal_rec)
    ok["plays"] = ok["plays"][:10]
    for k in ("result",):
        ok.pop(k)
    assert len(replay_deal(ok).plays) == 10


def test_wrong_format(deal_rec):
    deal_rec["format"] = "coinche-rl/dael"
    raises_record_error(deal_rec, "format", "coinche-rl/dael")
    raises_record_error(deal_rec, "format", fn=replay)


def test_wrong_version(deal_rec):
    deal_rec["version"] = 2
    raises_record_error(deal_rec, "version", "2")


def test_unknown_preset_lists_valid_presets(deal_rec):
    deal_rec["rules"]["preset"] = "nosuch"
    raises_record_error(deal_rec, "rules", "nosuch", "'ffb'", "'ffb_sa_ta'")


@pytest.mark.parametrize("overrides, fragment", [
    ({"nosuch": 1}, "nosuch"),
    ({"max_bid": 200}, "max_bid"),
    ({"fail_base": 161}, "fail_base"),
    ({"strains": "everything"}, "strains"),
])
def test_bad_override(deal_rec, overrides, fragment):
    deal_rec["rules"]["overrides"] = overrides
    raises_record_error(deal_rec, "rules", fragment)


def test_overrides_not_an_object(deal_rec):
    deal_rec["rules"]["overrides"] = ["max_bid", 150]
    raises_record_error(deal_rec, "rules.overrides")


def test_missing_rules(deal_rec):
    del deal_rec["rules"]
    raises_record_error(deal_rec, "rules", "missing")


def test_missing_hands(deal_rec):
    del deal_rec["hands"]
    raises_record_error(deal_rec, "hands", "missing")


def test_three_hands(deal_rec):
    deal_rec["hands"] = deal_rec["hands"][:3]
    raises_record_error(deal_rec, "hands", "4")


def test_hand_with_malformed_card(deal_rec):
    cards = deal_rec["hands"][1].split()
    cards[2] = "XZ"
    deal_rec["hands"][1] = " ".join(cards)
    raises_record_error(deal_rec, "hands", "XZ")


def test_card_dealt_twice(deal_rec):
    h0 = deal_rec["hands"][0].split()
    h1 = deal_rec["hands"][1].split()
    dup = h0[0]
    h1[0] = dup                       # seat 1 gets a card of seat 0 (both still 8 cards)
    deal_rec["hands"][1] = " ".join(h1)
    msg = raises_record_error(deal_rec, "hands", dup)
    assert "twice" in msg


def test_bad_dealer(deal_rec):
    deal_rec["dealer"] = 4
    raises_record_error(deal_rec, "dealer")
    deal_rec["dealer"] = "0"
    raises_record_error(deal_rec, "dealer")


def _replay_prefix(rec, n_plays):
    """The deal of a record after its auction and its first ``n_plays`` plays."""
    d = Deal(get_rules(rec["rules"]["preset"], **rec["rules"]["overrides"]),
             hands=rec["hands"], dealer=rec["dealer"])
    for a in rec["auction"] + rec["plays"][:n_plays]:
        d.apply(a)
    return d


def test_illegal_card_in_plays(deal_rec):
    # the first play where the seat to act holds a card it may not play
    for i in range(len(deal_rec["plays"])):
        d = _replay_prefix(deal_rec, i)
        illegal = d.hands[d.current_player] & ~d.legal_cards()
        if illegal:
            break
    else:
        pytest.fail("the fixture deal has no play where the seat holds an illegal card: pick another seed")
    card = format_card((illegal & -illegal).bit_length() - 1)
    deal_rec["plays"][i] = card
    msg = raises_record_error(deal_rec, f"plays[{i}]", card)
    assert "illegal" in msg


def test_card_not_in_hand_in_plays(deal_rec):
    d = _replay_prefix(deal_rec, 0)
    other = d.hands[(d.current_player + 1) % 4]
    card = format_card((other & -other).bit_length() - 1)
    deal_rec["plays"][0] = card
    raises_record_error(deal_rec, "plays[0]", card, "not in the hand")


def test_malformed_action_in_plays(deal_rec):
    deal_rec["plays"][3] = "QQ"
    raises_record_error(deal_rec, "plays[3]", "QQ")


def test_illegal_bid_in_auction(deal_rec):
    k = next(i for i, a in enumerate(deal_rec["auction"]) if a != "pass")
    bid = deal_rec["auction"][k]
    deal_rec["auction"][k + 1] = bid            # not higher than the current bid
    msg = raises_record_error(deal_rec, f"auction[{k + 1}]", bid)
    assert "illegal" in msg


def test_coinche_without_bid(deal_rec):
    deal_rec["auction"][0] = "coinche"
    raises_record_error(deal_rec, "auction[0]", "coinche")


def test_auction_too_short(deal_rec):
    deal_rec["auction"] = deal_rec["auction"][:-1]
    raises_record_error(deal_rec, "plays[0]", "auction")


def test_tampered_team_score(deal_rec):
    deal_rec["result"]["teams"][0]["score"] += 10
    raises_record_error(deal_rec, "result.teams[0].score")


def test_tampered_scores(deal_rec):
    deal_rec["result"]["scores"][1] += 10
    raises_record_error(deal_rec, "result.scores")


def test_tampered_made(deal_rec):
    deal_rec["result"]["made"] = not deal_rec["result"]["made"]
    raises_record_error(deal_rec, "result.made")


def test_missing_result(deal_rec):
    del deal_rec["result"]
    raises_record_error(deal_rec, "result", "missing")


def test_tampered_declarations(deal_rec):
    seat = next(s["seat"] for s in deal_rec["declarations"]["seats"] if s["points"] > 0)
    deal_rec["declarations"]["seats"][seat]["points"] += 20
    raises_record_error(deal_rec, f"declarations.seats[{seat}].points")


def test_tampered_declaration_winner(deal_rec):
    w = deal_rec["declarations"]["winner"]
    deal_rec["declarations"]["winner"] = 1 - w
    raises_record_error(deal_rec, "declarations.winner")


def test_tampered_belote(deal_rec):
    deal_rec["belote"] = [deal_rec["belote"][0] + 20, deal_rec["belote"][1]]
    raises_record_error(deal_rec, "belote")


def test_tampered_contract(deal_rec):
    deal_rec["contract"]["taker"] = (deal_rec["contract"]["taker"] + 1) % 4
    raises_record_error(deal_rec, "contract.taker")


# ----------------------------------------------------------- corrupted matches
def test_good_match_record_replays(match_rec, good_match):
    out = replay_match(match_rec)
    assert out["winner"] == good_match.winner
    assert out["scores"] == good_match.scores
    assert [d.dealer for d in out["deals"]] == [
        (match_rec["first_dealer"] + i) % 4 for i in range(len(match_rec["deals"]))]


def test_match_wrong_version_and_format(match_rec):
    rec = copy.deepcopy(match_rec)
    rec["version"] = 0
    raises_record_error(rec, "version", fn=replay_match)
    rec = copy.deepcopy(match_rec)
    rec["format"] = DEAL_FORMAT
    raises_record_error(rec, "format", fn=replay_match)


def test_match_unknown_preset(match_rec):
    match_rec["rules"]["preset"] = "belotte"
    raises_record_error(match_rec, "rules", "belotte", "'ffb'", fn=replay_match)


def test_match_wrong_first_dealer(match_rec):
    match_rec["first_dealer"] = (match_rec["first_dealer"] + 1) % 4
    raises_record_error(match_rec, "deals[0].dealer", "rotation", fn=replay_match)


def test_match_wrong_dealer_consistent_deal(match_rec, good_match):
    """Deal 1 replaced by a self-consistent deal record with the wrong dealer: the
    rotation check names deals[1].dealer."""
    i = 1
    wrong = (good_match.deals[i].dealer + 1) % 4
    d = play(Deal(good_match.rules, hands=good_match.deals[i].initial_hands, dealer=wrong), 1)
    match_rec["deals"][i] = deal_to_record(d, include_rules=False)
    raises_record_error(match_rec, f"deals[{i}].dealer", "rotation", fn=replay_match)


def test_match_tampered_dealer_field_named(match_rec):
    i = 1
    match_rec["deals"][i]["dealer"] = (match_rec["deals"][i]["dealer"] + 1) % 4
    raises_record_error(match_rec, f"deals[{i}].dealer", fn=replay_match)


def test_match_tampered_dealer_field_rejected(match_rec):
    """Whatever field it names, the tampered dealer is rejected within deals[1]."""
    match_rec["deals"][1]["dealer"] = (match_rec["deals"][1]["dealer"] + 1) % 4
    raises_record_error(match_rec, "deals[1].", fn=replay_match)


def test_match_tampered_scores(match_rec):
    match_rec["scores"][0] += 10
    raises_record_error(match_rec, "scores[0]", fn=replay_match)


def test_match_tampered_winner(match_rec):
    match_rec["winner"] = 1 - match_rec["winner"]
    raises_record_error(match_rec, "winner", fn=replay_match)
    match_rec["winner"] = None
    raises_record_error(match_rec, "winner", fn=replay_match)


def test_match_tampered_deal_result(match_rec):
    match_rec["deals"][2]["result"]["scores"][0] += 10
    raises_record_error(match_rec, "deals[2].result.scores[0]", fn=replay_match)


def test_match_illegal_play_in_later_deal(match_rec):
    k = next(i for i, d in enumerate(match_rec["deals"]) if i and d["plays"])
    d = match_rec["deals"][k]
    d["plays"][0], d["plays"][1] = d["plays"][1], d["plays"][0]   # seat 1's card first
    raises_record_error(match_rec, f"deals[{k}].plays[0]", fn=replay_match)


def test_match_deal_after_the_end(match_rec):
    match_rec["deals"].append(copy.deepcopy(match_rec["deals"][0]))
    n = len(match_rec["deals"]) - 1
    raises_record_error(match_rec, f"deals[{n}]", "end of the match", fn=replay_match)


def test_match_missing_first_dealer(match_rec):
    del match_rec["first_dealer"]
    raises_record_error(match_rec, "first_dealer", "missing", fn=replay_match)


# -------------------------------------------------------------------- files
def test_file_not_json(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json", encoding="utf-8")
    with pytest.raises(RecordError, match="not valid JSON"):
        load_record(str(p))
    with pytest.raises(RecordError, match="not valid JSON"):
        replay(str(p))


def test_file_not_utf8(tmp_path):
    p = tmp_path / "binary.json"
    p.write_bytes(b"\xff\xfe\x00\x01 not json")
    with pytest.raises(RecordError, match=str(p.name)):
        load_record(str(p))


def test_file_json_but_not_object(tmp_path):
    p = tmp_path / "list.json"
    p.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(RecordError, match="JSON object"):
        load_record(str(p))


def test_missing_file(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        load_record(str(tmp_path / "nope.json"))


def test_record_error_is_value_error():
    assert issubclass(RecordError, ValueError)


@pytest.mark.parametrize("fn", [replay_match, replay])
def test_non_object_record_rejected(fn):
    with pytest.raises(RecordError):
        fn([1, 2])


def test_non_object_deal_record_rejected():
    with pytest.raises(RecordError, match="expected an object"):
        replay_deal([1, 2])


@pytest.mark.parametrize("rules", [
    lambda: RuleSet(name="custom", strains="suits_nt_at"),
    lambda: get_rules("ffb", name="mine", target=500),
], ids=["RuleSet-custom-name", "get_rules-name-override"])
def test_record_of_custom_named_rules_replays(rules):
    deal = play(Deal(rules(), seed=4), 4)
    rec = json.loads(json.dumps(deal_to_record(deal)))
    assert replay_deal(rec) == deal


# --------------------------------------------------------------------- matches
@pytest.mark.parametrize("preset, target, seed", [
    ("ffb", 500, 1), ("ffb", 1000, 2), ("ffb_sa_ta", 1000, 3), ("ffb", 2000, 4),
])
def test_match_played_to_the_end(preset, target, seed):
    m = Match(preset, target=target, seed=seed)
    assert m.target == target and m.rules.target == target
    play(m, seed, mild_policy)
    assert m.is_terminal and m.winner in (0, 1)
    w, l = m.winner, 1 - m.winner
    assert m.scores[w] >= target
    assert m.scores[l] < target or m.scores[w] > m.scores[l]
    # the match totals are the sum of the deal scores, dealers rotate
    assert [sum(d.scores[t] for d in m.deals) for t in (0, 1)] == m.scores
    assert [d.dealer for d in m.deals] == [(m.first_dealer + i) % 4 for i in range(len(m.deals))]
    # FFB: the winner was neither the failing taker nor capot on the last deal
    last = m.deals[-1]
    assert not last.is_void
    assert not (last.contract.taker_team == w and not last.result.made)
    assert last.tricks_won[w] > 0
    # over: no more actions
    assert m.legal_actions() == [] and m.current_player is None
    assert not m.legal_action_mask().any()
    with pytest.raises(IllegalActionError, match="over"):
        m.apply(0)


def test_match_same_seed_same_match():
    def run(seed):
        return play(Match("ffb", target=1000, seed=seed), 77, mild_policy)
    a, b = run(21), run(21)
    assert a.first_dealer == b.first_dealer
    assert a.scores == b.scores and a.winner == b.winner
    assert len(a.deals) == len(b.deals)
    assert all(x == y for x, y in zip(a.deals, b.deals))
    c = Match("ffb", target=1000, seed=22)
    assert c.deal.initial_hands != a.deals[0].initial_hands


def _gather_cut_deal_candidates(prev: Deal, dealer: int):
    """Every hand set gather-cut-deal could produce from a finished non-void deal: the
    tricks gathered in the order played, cut (each part at least 3 cards), dealt
    3-2-3 from the seat after the dealer (RULES.md §3)."""
    pack0 = [c for _, c in prev.plays]
    assert len(pack0) == 32
    out = {}
    for cut in range(3, 30):
        pack = pack0[cut:] + pack0[:cut]
        hands = [0, 0, 0, 0]
        i = 0
        for packet in (3, 2, 3):
            for k in range(4):
                seat = (dealer + 1 + k) % 4
                for _ in range(packet):
                    hands[seat] |= 1 << pack[i]
                    i += 1
        out[cut] = hands
    return out


@pytest.mark.parametrize("seed", [0, 1, 2, 4])
def test_gather_cut_deal_match(seed):
    rules = get_rules("ffb", shuffle_between_deals=False)
    assert not rules.shuffle_between_deals
    m = play(Match(rules, target=1000, seed=seed), seed, mild_policy)
    deals = m.deals
    assert len(deals) >= 3
    checked = 0
    for prev, nxt in zip(deals, deals[1:]):
        hands = nxt.initial_hands
        assert all(popcount(h) == 8 for h in hands)
        union = 0
        for h in hands:
            assert union & h == 0
            union |= h
        assert union == FULL_DECK
        assert nxt.dealer == (prev.dealer + 1) % 4
        if not prev.is_void:
            cands = _gather_cut_deal_candidates(prev, nxt.dealer)
            assert hands in cands.values(), (
                f"deal {deals.index(nxt)} is not the previous deal's tricks, cut and dealt 3-2-3")
            checked += 1
    assert checked >= 2
    # same seed (and same actions), same match
    again = play(Match(rules, target=1000, seed=seed), seed, mild_policy)
    assert again.scores == m.scores and again.winner == m.winner
    assert all(x == y for x, y in zip(again.deals, m.deals)) and len(again.deals) == len(deals)
    # and the record replays
    out = replay_match(json.loads(json.dumps(match_to_record(m))))
    assert out["scores"] == m.scores and out["rules"].shuffle_between_deals is False


def test_gather_cut_deal_differs_from_shuffle():
    """Without a shuffle the second deal is a cut of the first deal's tricks; with the
    shuffle (same seed, same actions) it is a fresh random deal."""
    def first_two(shuffle, seed):
        m = Match(get_rules("ffb", shuffle_between_deals=shuffle), target=1000, seed=seed)
        rng = np.random.default_rng(seed)
        while not m.deals:
            m.apply(mild_policy(m, rng, 0.3))
        return m.deals[0], m.deal

    seed = next(s for s in range(50) if not first_two(False, s)[0].is_void)
    prev, nxt = first_two(False, seed)
    assert nxt.initial_hands in _gather_cut_deal_candidates(prev, nxt.dealer).values()
    prev_s, nxt_s = first_two(True, seed)
    # same first deal and the same actions on it (the rule sets differ, so compare the
    # engine states)
    assert np.array_equal(prev_s.state, prev.state) and prev_s.history == prev.history
    assert nxt_s.initial_hands not in _gather_cut_deal_candidates(prev_s, nxt_s.dealer).values()


# ------------------------------------------------------------- the rules' JSON
#: rule sets and their JSON as game records and the arena's results files have always
#: written them (run ids hash this JSON: a change would orphan every results file)
_RULES_JSON = [
    (("ffb", {}), '{"preset":"ffb","overrides":{}}'),
    (("classic", {"target": 500}), '{"preset":"classic","overrides":{"target":500}}'),
    (("ffb", {"name": "house", "target": 1200, "bid_step": 20}),
     '{"preset":"ffb","overrides":{"name":"house","bid_step":20,"target":1200}}'),
    (("coinche_x3", {"name": "house2"}),
     '{"preset":"ffb","overrides":{"name":"house2","strains":"suits_nt_at","multipliers":[2,3],'
     '"declarations_share_cards":true,"carre_low_cancels":true,"optional_declare":true,'
     '"contract_counts":"cards","made_conditions":"bid_only","fail_base":162,'
     '"coinche_scoring":"cards_plus_bid"}}'),
]


@pytest.mark.parametrize("rules, text", _RULES_JSON)
def test_rules_json_is_one_function_for_records_and_the_arena(rules, text):
    from coinche_rl import records
    from coinche_rl.arena import executors, formats, tasks
    r = get_rules(rules[0], **rules[1])
    assert json.dumps(records.rules_record(r), separators=(",", ":")) == text
    assert records.rules_from_record(json.loads(text)) == r
    assert formats.rules_record is records.rules_record
    assert tasks.rules_from_record is executors.rules_from_record is records.rules_from_record
    rec = deal_to_record(play(Deal(r, seed=1), 1))
    assert json.dumps(rec["rules"], separators=(",", ":")) == text
    assert replay_deal(rec).rules == r
