"""The README's Python examples and the notebooks run as written.

Every ```python block of README.md runs on its own, in a fresh interpreter (as a reader
pasting it into a new session would run it): one test per block, found when the tests are
collected, so that a block added later is checked too, and named by its section and line.
The interpreters share one numba cache folder (the session's ``NUMBA_CACHE_DIR`` when set,
as ``make test`` sets it, else a temporary one), so a kernel compiles once for all of
them. Blocks run in the background, in README order, on up to ``COINCHE_DOCS_WORKERS``
processes at a time (default: half the cores, at most 4), each test waiting for its own.
A block whose first line names a module file (``# my_agents.py``) is what the reader is
asked to save: it is written into a folder on every block's ``PYTHONPATH`` (and run as
a block too).

A comment that shows what the block prints is written ``# -> text``: every such comment
must match a line of the block's output, in order (``...`` stands for any text), so that
the README never shows an output the code does not print.
"""

import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: seconds one block may take (the first ones compile kernels on a fresh cache)
BLOCK_TIMEOUT = 1500


@dataclass(frozen=True)
class Block:
    line: int           # the line of the opening fence in README.md
    heading: str        # the section it is in
    code: str

    @property
    def first_line(self) -> str:
        return next((s for s in self.code.splitlines() if s.strip()), "")

    @property
    def name(self) -> str:
        return f"README.md line {self.line} ({self.heading}: {self.first_line})"

    def __str__(self) -> str:           # the test id
        return f"L{self.line}-{self.heading}"


def python_blocks(text: str):
    """Every ```python block of ``text``, with its line and the heading above it
    (lines starting with ``#`` inside a fence are code, not headings)."""
    blocks, heading, fence, start, body = [], "", None, 0, []
    for i, line in enumerate(text.splitlines(), 1):
        if fence is None:
            if line.startswith("```"):
                fence, start, body = line[3:].strip(), i, []
            elif re.match(r"#{1,6} ", line):
                heading = line.lstrip("#").strip()
        elif line.startswith("```"):
            if fence == "python":
                blocks.append(Block(start, heading, "\n".join(body) + "\n"))
            fence = None
        else:
            body.append(line)
    return blocks


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def missing_needs(block: str):
    """Modules named on a first line ``# needs: a, b`` that are not installed (the
    block shows an optional extra; it runs wherever the extra is installed)."""
    first = block.splitlines()[0] if block else ""
    if not first.startswith("# needs:"):
        return []
    return [name.strip() for name in first.split(":", 1)[1].split(",")
            if importlib.util.find_spec(name.strip()) is None]


def module_file(block: Block):
    """The file name a block asks the reader to save it as (``# my_agents.py`` on its
    first line), or None."""
    m = re.fullmatch(r"# ([A-Za-z_]\w*\.py)\s*", block.first_line)
    return m.group(1) if m else None


def _run_block(block: Block, folder: Path, env: dict):
    """Run one block in a fresh interpreter; ``(returncode, output, seconds)``. The
    script is the block preceded by blank lines, so that a traceback's line numbers are
    README.md's."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "README.md"
    script.write_text("\n" * block.line + block.code, encoding="utf-8")
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, str(script)], cwd=folder, env=env,
                           capture_output=True, text=True, timeout=BLOCK_TIMEOUT)
        out, rc, stdout = r.stdout + r.stderr, r.returncode, r.stdout
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        out, rc, stdout = out + f"\n(timed out after {BLOCK_TIMEOUT} s)", -1, out
    return rc, out, time.perf_counter() - t0, stdout


#: a comment showing an output: ``print(x)  # -> 42``
SHOWN = re.compile(r"#\s*->\s?(.*?)\s*$")


def shown_outputs(code: str):
    """``(line, text)`` of every ``# -> text`` comment of ``code`` (lines from 1)."""
    return [(i, m.group(1)) for i, line in enumerate(code.splitlines(), 1)
            if (m := SHOWN.search(line)) and "#" not in line[:m.start()].replace("'#'", "")
            .replace('"#"', "")]


def unprinted(code: str, stdout: str):
    """The ``# -> text`` comments of ``code`` that no line of ``stdout`` matches, in
    order: each must match a whole line (``...``: any text) after the previous one's."""
    lines, at, missing = stdout.splitlines(), 0, []
    for line, text in shown_outputs(code):
        pattern = re.compile(r"\s*" + ".*".join(map(re.escape, text.split("..."))) + r"\s*")
        hit = next((k for k in range(at, len(lines)) if pattern.fullmatch(lines[k])), None)
        if hit is None:
            missing.append(f"line {line}: # -> {text}")
        else:
            at = hit + 1
    return missing


@pytest.fixture(scope="session")
def readme_runs(request, tmp_path_factory):
    """The selected blocks, submitted at once to a small pool in README order: block ->
    future of ``_run_block``."""
    selected = [item.callspec.params["block"] for item in request.session.items
                if getattr(item, "originalname", None) == "test_readme_python_block"
                and "block" in getattr(getattr(item, "callspec", None), "params", {})]
    base = tmp_path_factory.mktemp("readme")
    env = dict(os.environ)
    env.setdefault("NUMBA_CACHE_DIR", str(tmp_path_factory.mktemp("readme_numba_cache")))
    saved = base / "saved_modules"                  # the files the README asks to save
    saved.mkdir()
    for b in BLOCKS:
        if module_file(b):
            (saved / module_file(b)).write_text(b.code, encoding="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(saved)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("OPENBLAS_NUM_THREADS", "1")     # the blocks are small; no BLAS threads
    workers = int(os.environ.get("COINCHE_DOCS_WORKERS", 0)) or \
        max(1, min(4, (os.cpu_count() or 1) // 2))
    pool = ThreadPoolExecutor(max_workers=workers)
    runs = {b: pool.submit(_run_block, b, base / f"line{b.line}", env)
            for b in selected if not missing_needs(b.code)}
    yield runs
    for f in runs.values():
        f.cancel()
    pool.shutdown(wait=True)


def test_readme_blocks_are_found():
    assert len(BLOCKS) >= 20
    text = "# Title\n\n## Section\n\n```python\nx = 1\n# a comment\n```\n\n```sh\nls\n```\n" \
           "\n## Next\n```python\nprint(x)\n```\n"
    blocks = python_blocks(text)
    assert [(b.line, b.heading, b.code) for b in blocks] == [
        (5, "Section", "x = 1\n# a comment\n"), (15, "Next", "print(x)\n")]
    assert blocks[1].name == "README.md line 15 (Next: print(x))"
    assert module_file(Block(1, "", "# my_agents.py\nx = 1\n")) == "my_agents.py"
    assert module_file(blocks[0]) is None
    assert any(module_file(b) for b in BLOCKS)          # the README's own agent module


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_readme_python_block(block, readme_runs):
    missing = missing_needs(block.code)
    if missing:
        pytest.skip(f"{block.name} needs {', '.join(missing)}")
    rc, out, seconds, stdout = readme_runs[block].result()
    assert rc == 0, f"{block.name} failed on its own (exit {rc}, {seconds:.1f} s):\n{out[-4000:]}"
    missing = unprinted(block.code, stdout)
    assert not missing, (f"{block.name}: comments show outputs the block does not print "
                         f"(README line = block line + {block.line}):\n" + "\n".join(missing)
                         + f"\nit printed:\n{stdout[-3000:]}")


def test_output_comments_are_checked_against_what_a_block_prints():
    code = ("print(v)  # -> {'8H': 63.2, 'KH': 62.2, ...}\n"
            "x = '#'   # a comment, not an output\n"
            "print(y)  # -> ... (3, 3) 10\n")
    assert shown_outputs(code) == [(1, "{'8H': 63.2, 'KH': 62.2, ...}"), (3, "... (3, 3) 10")]
    printed = "{'8H': 63.2, 'KH': 62.2, '7S': 62.8}\nQS 9S (3, 3) 10\n"
    assert unprinted(code, printed) == []
    # issue 44: the README showed {'7H': 165.2, ...} where the block printed {'8H': 63.2, ...}
    old = "print(v)  # -> {'7H': 165.2, ...}\n"
    assert unprinted(old, printed) == ["line 1: # -> {'7H': 165.2, ...}"]
    # in order, each on a line of its own
    assert unprinted("print(b)  # -> QS 9S (3, 3) 10\nprint(a)  # -> {'8H': ...}\n", printed)
    assert unprinted("print(b)  # -> (3, 3)\n", printed)


def test_the_readme_demo_timing_is_the_measured_current_figure():
    # issue 44: "about a minute ... about 20 s of numba compilation" was not measured
    readme = " ".join(README.read_text(encoding="utf-8").split())
    m = re.search(r"`make demo` took (\d+ min \d+ s) on an otherwise idle 2-core (\S+ \S+) VM", readme)
    assert m, "the README gives make demo's measured time and machine"
    current = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8").split("## History")[0]
    row = next(line for line in current.splitlines() if line.startswith("| `make demo`"))
    assert f"**{m.group(1)}**" in row and m.group(2) in row and "idle" in row
    assert "about a minute" not in readme


def _joined(text) -> str:
    return "".join(text) if isinstance(text, list) else text


def committed_text(cell) -> str:
    """What a notebook cell shows as text, as committed: its printed output (stdout) and
    its displayed text (rich's tables show as displays in Jupyter), less the plots and
    stderr (warnings, progress bars)."""
    out = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream" and o.get("name") == "stdout":
            out.append(_joined(o["text"]))
        elif o.get("output_type") in ("display_data", "execute_result"):
            data = o.get("data", {})
            if "text/plain" in data and "image/png" not in data:
                out.append(_joined(data["text/plain"]) + "\n")
    return "".join(out)


#: what changes from run to run without the code changing: colours, timings and speeds,
#: addresses, temporary folders, a trainer's timed progress lines; and the run ids of a
#: results file (hashes of the agents' code: any edit of it changes them)
_MASKS = [(re.compile(r"\x1b\[[0-9;]*m"), ""),
          (re.compile(r"0x[0-9a-fA-F]{4,}"), "0x<address>"),
          (re.compile(r"\b[0-9a-f]{16}\b"), "<run id>"),
          (re.compile(r"(/tmp|/var/folders)/\S+"), "<temporary folder>"),
          (re.compile(r"\b\d[\d.]* training min\b"), "<time> training min"),
          (re.compile(r"\b\d[\d,]*(\.\d+)?\s?[a-z]+/s\b"), "<speed>"),
          (re.compile(r"\b\d[\d,]*(\.\d+)?\s?(s|ms|µs|us|min)\b"), "<time>")]


def masked(text: str):
    """``text`` as compared: lines without trailing blanks, blank lines and a trainer's
    timed progress lines dropped, and
    :data:`_MASKS` applied; the last column of a table under a ``deals/s`` heading (the
    speed of that run) masked too, and runs of spaces and of a table's rules made one."""
    lines, speed_column = [], False
    for line in text.splitlines():
        line = re.sub(r"\x1b\[[0-9;]*m", "", line).rstrip()
        if not line.strip():
            speed_column = False
            continue
        if re.match(r"\[\s*[\d.]+ min\] ", line):     # a trainer's progress, every so often
            continue
        if "deals/s" in line and re.search(r"deals/s\s*[┃|]?$", line):
            speed_column = True
        elif speed_column:
            line = re.sub(r"[\d,.]+(\s*│?)$", r"<speed>\1", line)
        if line.startswith(("└", "╰")):
            speed_column = False
        for pattern, repl in _MASKS:
            line = pattern.sub(repl, line)
        # a wider speed makes its column, and so the table's rules, wider
        lines.append(re.sub(r" +", " ", re.sub(r"([━─═])\1+", r"\1", line)))
    return lines


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    """Every notebook runs, and prints what its committed outputs show (masked: times,
    speeds, addresses): a notebook whose outputs went stale fails (re-run it with
    ``python notebooks/execute.py NAME``)."""
    import contextlib
    import difflib
    import io
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, f"{path.name} has no code cell"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    stale = []
    for i, cell in enumerate(code):
        # an IPython line magic (%matplotlib inline) is Jupyter's, not Python's: skipped
        source = "".join(line for line in "".join(cell["source"]).splitlines(keepends=True)
                         if not line.startswith("%"))
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(source, f"{path.name}[cell {i}]", "exec"), namespace)
        want, got = masked(committed_text(cell)), masked(printed.getvalue())
        if want != got:
            stale.append(f"code cell {i}:\n" + "\n".join(difflib.unified_diff(
                want, got, "committed", "printed now", lineterm="", n=1)))
    assert not stale, (f"{path.name}: the committed outputs are not what the code prints now "
                       f"(python notebooks/execute.py {path.name}):\n" + "\n".join(stale)[:6000])


def test_the_environment_notebook_says_the_spaces_the_env_has():
    # issue 44: notebook 02's text said Discrete(118) where the env has Discrete(120)
    from coinche_rl.envs import coinche_v0
    env = coinche_v0.env()
    env.reset(seed=0)
    agent = env.agents[0]
    n = env.action_space(agent).n
    size = env.observation_space(agent)["observation"].shape[0]
    nb = json.loads((ROOT / "notebooks" / "02_environment.ipynb").read_text(encoding="utf-8"))
    text = "".join(_joined(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert set(re.findall(r"Discrete\((\d+)\)", text)) == {str(n)}
    assert set(re.findall(r"int8\[(\d+)\]", text)) == {str(n)}
    assert set(re.findall(r"float32\[(\d+)\]", text)) == {str(size)}


def test_notebook_outputs_are_compared_masked():
    cell = {"outputs": [
        {"output_type": "stream", "name": "stdout", "text": ["Discrete(118)\n", "567,455 deals/s\n"]},
        {"output_type": "stream", "name": "stderr", "text": "a warning\n"},
        {"output_type": "display_data", "data": {"text/plain": "\x1b[1mtable\x1b[0m  ", "text/html": "x"}},
        {"output_type": "execute_result", "data": {"text/plain": "<Figure>", "image/png": "..."}}]}
    assert committed_text(cell) == "Discrete(118)\n567,455 deals/s\n\x1b[1mtable\x1b[0m  \n"
    # issue 44: the committed Discrete(118) against the env's Discrete(120)
    assert masked(committed_text(cell)) != masked("Discrete(120)\n1,234 deals/s\ntable\n")
    assert masked(committed_text(cell)) == masked("Discrete(118)\n\n1,234 deals/s\ntable\n")
    table = ("┃ team X ┃ deals/s ┃\n│ a      │  16,729 │\n└────────┴────────┘\n"
             "at 0x7f3a2b1c in /tmp/tmpab/run, 3.2 s\n[   0.2 min] upd 90 loss 0.19\n"
             "{'run': 'f5866f7d312aabf5'}\n")
    assert masked(table) == ["┃ team X ┃ deals/s ┃", "│ a │ <speed> │", "└─┴─┘",
                             "at 0x<address> in <temporary folder> <time>", "{'run': '<run id>'}"]
    wider = "┃ team X  ┃ deals/s ┃\n│ a       │ 134,183 │\n└─────────┴─────────┘\n"
    assert masked(wider) == masked(table)[:3]


# ------------------------------------------------------------------ links and the rule book
DOCS = [README] + sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_relative_links_resolve(path):
    """Every link of the README and docs/ to a file of the repository points to a file
    that is there (a page link outside, or an anchor, is not checked)."""
    text = path.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        if not (path.parent / target.split("#")[0]).exists():
            broken.append(target)
    assert not broken, f"{path.name}: links to missing files: {broken}"


def test_the_rule_book_ships_in_docs():
    """RULES.md, which the README, the docs and the code cite as the rule book, is in the
    repository (docs/RULES.md), linked, and has every section they cite."""
    book = ROOT / "docs" / "RULES.md"
    text = book.read_text(encoding="utf-8")
    assert text.startswith("# Rules specification")
    readme = README.read_text(encoding="utf-8")
    assert "The rule book is [docs/RULES.md](docs/RULES.md)" in readme
    assert "[RULES.md](RULES.md)" in (ROOT / "docs" / "rules-decisions.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+)\. ", text, re.M))
    cited = set()
    for folder in ("coinche_rl", "agents", "envs", "docs"):
        for f in (ROOT / folder).rglob("*.py" if folder != "docs" else "*.md"):
            cited |= set(re.findall(r"RULES\.md §(\d+)", f.read_text(encoding="utf-8")))
    cited |= set(re.findall(r"RULES\.md §(\d+)", readme))
    assert cited and cited <= sections, f"sections cited but not in docs/RULES.md: {cited - sections}"


# ------------------------------------------------------------------ notebooks as committed
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: the notebooks that draw a plot (each must carry at least one image)
PLOTTING = {"03_tournament.ipynb", "04_hand_evaluation_and_pimc.ipynb",
            "05_neural_card_play.ipynb", "06_neural_bidding.ipynb", "07_belote_for_two.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_committed_executed(path):
    """Every notebook is saved with its outputs (``python notebooks/execute.py``), so
    that its results and plots show on the repository page: every code cell ran, in
    order, without an error; the plotting ones carry their images; the file stays small."""
    assert path.stat().st_size < 1_000_000, f"{path.name}: {path.stat().st_size:,} bytes"
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    counts = [c.get("execution_count") for c in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: not executed in order: {counts}"
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"], path.name
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert bool(images) == (path.name in PLOTTING), f"{path.name}: {len(images)} images"
    # saved by notebooks/execute.py: no run metadata, a cell's text of one stream in one
    # output (so that a re-run changes only what changed)
    for c in code:
        assert "execution" not in c.get("metadata", {}), path.name
        kinds = [(o["output_type"], o.get("name")) for o in c.get("outputs", [])]
        assert all(not (a == b and a[0] == "stream") for a, b in zip(kinds, kinds[1:])), kinds


def _cell_text(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_notebook_05_says_how_nn_bids_and_prints_each_row_once():
    from coinche_rl.agents.neural.agent import NeuralAgent
    path = ROOT / "notebooks" / "05_neural_card_play.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    intro = _cell_text(nb["cells"][0])
    # the nn agent bids with its network where bidding weights ship (ffb: they do)
    assert NeuralAgent().bidding == "auto"
    assert (ROOT / "agents" / "neural" / "weights" / "ffb_bid.npz").exists()
    assert "and bids like the heuristic." not in intro
    assert "bids with the bidding network" in intro
    # the learning-curve rows as printed: each once, the last one of the history last
    cell = next(c for c in nb["cells"] if "learning_curve" in _cell_text(c))
    rows = "".join(o.get("text", "") if isinstance(o.get("text", ""), str) else "".join(o["text"])
                   for o in cell["outputs"] if o.get("output_type") == "stream").splitlines()
    assert rows and len(rows) == len(set(rows)), rows
    from coinche_rl.agents.neural.agent import load_play_net
    last = load_play_net().manifest["evaluation"]["history"][-1]
    assert rows[-1] == f"{last['minutes']:6.1f} min  {last['margin']:+6.1f} ± {last['ci95']:.1f}"
