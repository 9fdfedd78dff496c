"""Run the notebooks and save them with their outputs, so that the plots and printed
results show on the repository page.

    python notebooks/execute.py                  # every notebook of this folder
    python notebooks/execute.py 05_neural_card_play.ipynb

Needs nbclient, nbformat and ipykernel in the environment that runs it (``pip install
nbclient nbformat ipykernel``; not dependencies of coinche-rl). Each notebook runs in a
kernel of this interpreter, in a temporary working folder (the files a notebook writes,
such as ``tournament.png``, do not land here), cell by cell to the end; an error stops
it and leaves the notebook file as it was. The saved notebook keeps its outputs but no
run-specific metadata (timings, kernel start times), and must stay under
:data:`MAX_BYTES`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the largest executed notebook kept (images included)
MAX_BYTES = 1_000_000
#: seconds one cell may take
CELL_TIMEOUT = 1800


def _clean(nb) -> None:
    """Drop what changes from run to run without saying anything: per-cell timings, the
    kernel's run metadata, and the points where a cell's printed text happened to be cut
    into several outputs (consecutive outputs of one stream are joined)."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("collapsed", None)
        if cell.cell_type != "code":
            continue
        joined = []
        for out in cell.outputs:
            if (out.output_type == "stream" and joined and joined[-1].output_type == "stream"
                    and joined[-1].name == out.name):
                joined[-1].text += out.text
            else:
                joined.append(out)
        cell.outputs = joined
    nb.metadata.pop("widgets", None)


def execute(path: Path) -> int:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="coinche-nb-") as work:
        client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                resources={"metadata": {"path": work}})
        client.execute()
    _clean(nb)
    text = nbformat.writes(nb) + "\n"
    size = len(text.encode("utf-8"))
    if size > MAX_BYTES:
        raise SystemExit(f"{path.name}: {size:,} bytes executed, over {MAX_BYTES:,}: make its "
                         f"figures smaller")
    path.write_text(text, encoding="utf-8")
    return size


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("notebooks", nargs="*", help="notebook files (default: every one here)")
    args = p.parse_args(argv)
    paths = [HERE / n if not Path(n).exists() else Path(n) for n in args.notebooks] \
        or sorted(HERE.glob("*.ipynb"))
    for path in paths:
        t0 = time.perf_counter()
        print(f"{path.name}: running ...", flush=True)
        size = execute(path)
        print(f"{path.name}: saved with its outputs ({size:,} bytes, "
              f"{time.perf_counter() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
