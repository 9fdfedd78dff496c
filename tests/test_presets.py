"""Every preset exists, is documented with every parameter value, and plays."""

import re
from pathlib import Path

import numpy as np
import pytest

from coinche_rl.rules import (FAMILY_PRESETS, FOUR_PLAYER_PRESETS, PRESET_SOURCES, PRESETS, get_rules,
                              presets_markdown)
from coinche_rl.simulate import simulate_deals

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = {"ffb", "ffb_sa_ta", "funbelote", "coinche_x3", "ludiclub_coinche", "ludiclub_contree",
            "colver", "classic", "classic_declarations", "vip_classic"}
#: the two-player family (RULES.md §12; tests/test_two_player*.py play them)
EXPECTED_TWO = {"belote_a_deux", "belote_decouverte"}


def test_every_preset_of_the_rule_book_exists_with_a_source():
    assert set(PRESETS) == EXPECTED | EXPECTED_TWO
    assert set(PRESET_SOURCES) == EXPECTED | EXPECTED_TWO
    assert set(FOUR_PLAYER_PRESETS) == EXPECTED
    assert set(FAMILY_PRESETS["two"]) == EXPECTED_TWO


def test_docs_preset_table_is_up_to_date():
    text = (ROOT / "docs" / "presets.md").read_text()
    m = re.search(r"<!-- presets-table:start -->\n(.*?)\n<!-- presets-table:end -->", text, re.S)
    assert m, "docs/presets.md lost its generated table markers"
    assert m.group(1) == presets_markdown(), "regenerate with: coinche-rl presets --markdown"


def test_readme_lists_every_preset():
    readme = (ROOT / "README.md").read_text()
    for name in PRESETS:
        assert f"`{name}`" in readme, name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_preset_plays_scores_and_sums_card_points(name):
    rules = get_rules(name)
    res = simulate_deals(3000, rules=rules, seed=11)
    played = res.played
    assert played.mean() > 0.5
    total = res.card_points.sum(axis=1)[played]
    # 162, 252 for a capot, 350 for a funbelote générale
    allowed = {162, 252} | ({rules.generale_bonus} if rules.generale_bonus else set())
    assert set(np.unique(total).tolist()) <= allowed
    assert (res.made[played] >= 0).all()
    if rules.rounding == "nearest10":
        assert (res.scores % 10 == 0).all()
