"""One Python face for every family: ``Deal`` and ``TwoPlayerDeal`` are ``BaseDeal``s
over the engine's entry points, ``TwoPlayerMatch`` is a ``Match``, and a record of
either is written and replayed by one path."""

from __future__ import annotations

import random

import numpy as np
import pytest

from coinche_rl import engine as E
from coinche_rl.game import BaseDeal, Deal, Match
from coinche_rl.records import match_to_record, replay, save_record
from coinche_rl.two_player import TwoPlayerDeal, TwoPlayerMatch


@pytest.mark.parametrize("preset", ["ffb", "classic", "belote_a_deux", "belote_decouverte"])
def test_a_match_of_every_family_through_one_face(preset, tmp_path):
    M = TwoPlayerMatch if preset.startswith("belote") else Match
    match = M(preset, seed=11, target=300)
    fam = E.family_of(preset)
    rng = random.Random(preset)
    steps = 0
    while not match.is_terminal:
        d = match.deal
        assert isinstance(d, BaseDeal) and d.family is fam
        assert d.phase in fam.phases and d.current_player == E.game_to_act(d._S, d.params)
        seat = d.current_player
        for s in range(fam.n_players):
            V = np.empty(fam.state_size, dtype=np.int64)
            E.game_public_view_into(d._S, d.params, s, V)
            assert np.array_equal(d.public_state(s), V)
        p = d.plays
        assert [x for t in d.tricks for x in t] == p
        assert len(d.trick_winners) == len(p) // fam.n_players
        assert d.current_trick == (d.tricks[-1] if len(p) % fam.n_players else [])
        if p:
            assert p[-1][0] in range(fam.n_players)
        legal = d.legal_actions()
        assert legal == list(np.flatnonzero(d.legal_action_mask()))
        a = rng.choice(legal)
        assert d.is_legal(a) and seat is not None
        match.apply(a)
        steps += 1
    assert len({d.dealer for d in match.deals}) == min(len(match.deals), fam.n_players)
    assert all(match.deals[i + 1].dealer == (match.deals[i].dealer + 1) % fam.n_players
               for i in range(len(match.deals) - 1))
    path = str(tmp_path / "m.json")
    save_record(match, path)
    back = replay(path)
    assert back["scores"] == match.scores and back["winner"] == match.winner
    assert back["scores"] == list(match_to_record(match)["scores"])


def test_from_state_checks_the_family_s_size():
    d = TwoPlayerDeal("belote_a_deux", seed=1)
    assert TwoPlayerDeal.from_state(d.rules, d.state) == d
    with pytest.raises(ValueError, match=r"a two state has shape \(\d+,\), not \(215,\)"):
        TwoPlayerDeal.from_state(d.rules, Deal("ffb", seed=1).state)
    with pytest.raises(ValueError, match=r"a coinche state has shape \(215,\)"):
        Deal.from_state("ffb", d.state)
    with pytest.raises(ValueError, match="dealer must be a player 0 or 1, not 2"):
        TwoPlayerMatch(dealer=2)
    with pytest.raises(ValueError, match="dealer must be a seat 0..3, not True"):
        Match(dealer=True)
