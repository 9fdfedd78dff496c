"""Records of belote for two players: a deal and a match round-trip through JSON and
replay; a tampered field is named."""

from __future__ import annotations

import json

import numpy as np
import pytest

from coinche_rl.records import (RecordError, deal_to_record, load_record, match_to_record, replay,
                                replay_deal, save_record)
from coinche_rl.two_player import TwoPlayerDeal, TwoPlayerMatch


def random_deal(preset, seed, stop=None):
    d = TwoPlayerDeal(preset, seed=seed)
    rng = np.random.default_rng(seed)
    k = 0
    while not d.is_terminal and (stop is None or k < stop):
        legal = d.legal_actions()
        d.apply(legal[int(rng.integers(len(legal)))])
        k += 1
    return d


@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_deal_records_round_trip(preset, tmp_path):
    for seed in range(40):
        d = random_deal(preset, seed, stop=None if seed % 3 else 1 + seed)
        rec = json.loads(json.dumps(deal_to_record(d)))
        d2 = replay_deal(rec)
        assert d2 == d and d2.history == d.history
    path = tmp_path / "deal.json"
    save_record(d, str(path))
    assert replay(str(path)) == d


def test_a_tampered_record_names_the_field():
    d = random_deal("belote_a_deux", 3)
    assert not d.is_void
    rec = deal_to_record(d)
    bad = json.loads(json.dumps(rec))
    bad["result"]["scores"][0] += 10
    with pytest.raises(RecordError, match=r"result\.scores\[0\]: stored"):
        replay_deal(bad)
    bad = json.loads(json.dumps(rec))
    bad["plays"][3] = bad["plays"][2]
    with pytest.raises(RecordError, match=r"plays\[3\]: illegal card"):
        replay_deal(bad)
    bad = json.loads(json.dumps(rec))
    bad["dealer"] = 2
    with pytest.raises(RecordError, match="dealer: expected a player 0 or 1"):
        replay_deal(bad)
    bad = json.loads(json.dumps(rec))
    bad["prise"] = bad["prise"][:-1]
    with pytest.raises(RecordError, match="before the end of the prise"):
        replay_deal(bad)


def test_match_records_round_trip_and_check_the_alternating_dealer(tmp_path):
    m = TwoPlayerMatch("belote_a_deux", target=400, seed=2, dealer=1)
    rng = np.random.default_rng(2)
    while not m.is_terminal:
        legal = m.legal_actions()
        m.apply(legal[int(rng.integers(len(legal)))])
    rec = json.loads(json.dumps(match_to_record(m)))
    out = replay(rec)
    assert out["scores"] == m.scores and out["winner"] == m.winner
    assert [d.dealer for d in out["deals"]] == [(1 + i) % 2 for i in range(len(m.deals))]
    bad = json.loads(json.dumps(rec))
    bad["deals"][1]["dealer"] = bad["deals"][0]["dealer"]
    with pytest.raises(RecordError, match=r"deals\[1\]\.dealer: expected"):
        replay(bad)
    path = tmp_path / "m.json"
    save_record(m, str(path))
    assert load_record(str(path)) == rec
