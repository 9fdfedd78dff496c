"""The README's Python examples and the notebooks run as written."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def python_blocks(text: str):
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def missing_needs(block: str):
    """Modules named on a first line ``# needs: a, b`` that cannot be imported (the
    block shows an optional extra; it runs wherever the extra is installed)."""
    first = block.splitlines()[0] if block else ""
    if not first.startswith("# needs:"):
        return []
    missing = []
    for name in first.split(":", 1)[1].split(","):
        name = name.strip()
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    return missing


def test_readme_python_examples_run(tmp_path, monkeypatch):
    blocks = python_blocks((ROOT / "README.md").read_text())
    assert len(blocks) >= 6
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:          # blocks build on each other, as a reader would run them
        if missing_needs(block):
            continue
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["deal"].is_terminal
    assert namespace["match"].winner in (0, 1)


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, f"{path.name} has no code cell"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for i, cell in enumerate(code):
        exec(compile("".join(cell["source"]), f"{path.name}[cell {i}]", "exec"), namespace)
