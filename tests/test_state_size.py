"""The documented state size is the real one (README, docs)."""

from pathlib import Path

from coinche_rl import engine as E

ROOT = Path(__file__).resolve().parents[1]


def test_docs_state_size_matches_the_engine():
    text = (ROOT / "README.md").read_text() + (ROOT / "docs" / "rules-decisions.md").read_text()
    assert f"{E.STATE_SIZE} int64" in text
    assert E.STATE_SIZE == E.S_DECK + 32
