"""What each family brings is its game's own content, in modules named in
``docs/architecture.md`` ("What each family brings"); the layers above the engine are
written once and never fork on the family. This keeps the table and the code in step."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ("coinche_rl", "envs", "agents")
#: the two family's own engine modules: importing one makes a module family-aware
TWO_ENGINE = re.compile(r"engine\.two\b|engine\.two_layout|engine\.two_accessors|"
                        r"from \.two(_layout|_accessors)? import|from \.engine import two\b|"
                        r"from \.\.engine import two\b|import two as")
#: comparing a rule set's family with "two" (a fork on the family)
FORK = re.compile(r"""family\s*[!=]=\s*["']two["']|["']two["']\s*[!=]=\s*\w*\.?family""")
#: where such a comparison belongs: the rules, the engine's kernels, the family
#: descriptions and the two family's own modules (its refusal of other rule sets)
FORK_ALLOWED = ("coinche_rl/rules.py", "coinche_rl/engine/", "envs/family.py",
                "coinche_rl/two_player.py", "coinche_rl/reference_two.py")


def _modules():
    for top in PACKAGE:
        for p in sorted((ROOT / top).rglob("*.py")):
            yield p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")


def _table():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    part = text.split("### What each family brings", 1)[1].split("\n### ", 1)[0]
    rows = [line.split("|")[1:-1] for line in part.splitlines()
            if line.startswith("| ") and not line.startswith("| concern")]
    assert len(rows) >= 10, "the table of docs/architecture.md lost its rows"
    cols = [set(), set(), set()]
    for row in rows:
        for k in range(3):
            cols[k].update(re.findall(r"`([\w/]+\.py)`", row[k + 1]))
    return cols


def test_table_paths_exist():
    for col in _table():
        for path in col:
            assert (ROOT / path).is_file(), f"docs/architecture.md names {path}, which is gone"


def test_every_family_module_is_in_the_table():
    shared, four, two = _table()
    for path, src in _modules():
        name = Path(path).stem
        if "two" in name:
            assert path in two, (f"{path} is a module of belote for two: name it in the "
                                 f"'belote for two' column of docs/architecture.md")
        elif TWO_ENGINE.search(src) and not path.startswith("coinche_rl/engine/"):
            assert path in shared | two, (
                f"{path} reads the two family's engine modules: a layer written once "
                f"(name it in the first column of docs/architecture.md) or the family's "
                f"own content (its column)")


def test_no_fork_on_the_family_above_the_kernels():
    for path, src in _modules():
        if path.startswith(FORK_ALLOWED):
            continue
        code = re.sub(r'"""(.|\n)*?"""', "", src)
        hit = FORK.search(code)
        assert hit is None, (f"{path} forks on the family ({hit.group(0)!r}): read the "
                             f"family's description (engine.family_of, envs.family, "
                             f"agents.neural.family) instead")
