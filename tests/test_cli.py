"""The ``coinche-rl`` command line, in-process (``coinche_rl.cli.main``) and as a
subprocess (``python -m coinche_rl.cli`` and the installed script)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coinche_rl.cli import main
from coinche_rl.records import load_record, replay_deal, replay_match

REPO = Path(__file__).resolve().parents[1]


def _env():
    env = dict(os.environ)
    # the subprocess must import this checkout even without an installed package
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run_cli(*args, cwd=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "coinche_rl.cli", *args], capture_output=True,
                          text=True, env=_env(), cwd=cwd, timeout=timeout)


@pytest.fixture(scope="module")
def deal_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "deal.json"
    assert main(["random-deal", "--seed", "3", "-o", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def match_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "match.json"
    assert main(["random-match", "--seed", "5", "-o", str(path)]) == 0
    return path


# ---------------------------------------------------------------------- replay
def test_replay_good_deal(deal_file, capsys):
    assert main(["replay", str(deal_file)]) == 0
    out = capsys.readouterr().out
    assert "deal record OK" in out
    rec = load_record(str(deal_file))
    assert not rec["result"]["void"]          # seed 3 gives a deal with a contract
    assert "deal score" in out
    assert "card points" in out and "team 0" in out
    assert f"contract: {rec['contract']['value']}{rec['contract']['strain']}" in out


def test_replay_good_deal_with_contract(tmp_path, capsys):
    """A non-void deal: the scoring breakdown is printed with the stored scores."""
    for seed in range(3, 40):
        path = tmp_path / f"d{seed}.json"
        assert main(["random-deal", "--seed", str(seed), "-o", str(path)]) == 0
        rec = load_record(str(path))
        if not rec["result"]["void"]:
            break
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "deal score" in out and ("made" in out or "failed" in out)
    s0, s1 = rec["result"]["scores"]
    score_line = next(line for line in out.splitlines() if line.startswith("deal score ")
                      and "raw" not in line)
    assert score_line.split()[-2:] == [str(s0), str(s1)]


def test_replay_good_match(match_file, capsys):
    assert main(["replay", str(match_file)]) == 0
    out = capsys.readouterr().out
    rec = load_record(str(match_file))
    assert "match record OK" in out
    assert f"final scores {rec['scores'][0]} - {rec['scores'][1]}" in out
    assert f"winner: team {rec['winner']}" in out
    assert "deal score" in out


def test_replay_broken_record(deal_file, tmp_path, capsys):
    rec = load_record(str(deal_file))
    rec["version"] = 99
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec), encoding="utf-8")
    assert main(["replay", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "error" in err and "version" in err and str(bad) in err


def test_replay_tampered_score(tmp_path, capsys):
    for seed in range(3, 40):
        path = tmp_path / "d.json"
        main(["random-deal", "--seed", str(seed), "-o", str(path)])
        rec = load_record(str(path))
        if not rec["result"]["void"]:
            break
    rec["result"]["teams"][1]["score"] += 10
    path.write_text(json.dumps(rec), encoding="utf-8")
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    cap = capsys.readouterr()
    assert "error" in cap.err and "result.teams[1].score" in cap.err
    assert "record OK" not in cap.out


def test_replay_not_json(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text("this is not json", encoding="utf-8")
    assert main(["replay", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "error" in err and "JSON" in err


def test_replay_binary_file(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["replay", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "coinche-rl: error" in err and "x.json" in err


def test_replay_unknown_format(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"format": "something/else"}), encoding="utf-8")
    assert main(["replay", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "error" in err and "format" in err


def test_replay_missing_file(tmp_path, capsys):
    missing = tmp_path / "nope.json"
    assert main(["replay", str(missing)]) != 0
    err = capsys.readouterr().err
    assert "error" in err and "nope.json" in err


# ------------------------------------------------------------------------ demo
def test_demo(capsys):
    assert main(["demo", "--deals", "2000", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "made" in out and "deals/s" in out
    assert "2,000 random deals" in out
    assert "all contracts" in out


def test_demo_reproducible_table(capsys):
    """Same seed, same table (apart from the timing lines)."""
    def table():
        assert main(["demo", "--deals", "500", "--seed", "4", "--rules", "ffb_sa_ta"]) == 0
        out = capsys.readouterr().out
        return [line for line in out.splitlines() if "deals/s" not in line and "kernels ready" not in line]
    a, b = table(), table()
    assert a == b
    assert any(line.startswith("strain NT") or line.startswith("strain AT") for line in a)


def test_demo_zero_deals_rejected(capsys):
    with pytest.raises(SystemExit) as ei:
        main(["demo", "--deals", "0"])
    assert ei.value.code != 0
    assert "--deals must be at least 1" in capsys.readouterr().err


def test_demo_unknown_rules(capsys):
    with pytest.raises(SystemExit) as ei:
        main(["demo", "--rules", "nosuch"])
    assert ei.value.code != 0
    err = capsys.readouterr().err
    assert "nosuch" in err and "'ffb'" in err and "'ffb_sa_ta'" in err


def test_demo_negative_deals(capsys):
    with pytest.raises(SystemExit) as ei:
        main(["demo", "--deals", "-1"])
    assert ei.value.code != 0
    assert "--deals" in capsys.readouterr().err


@pytest.mark.parametrize("argv, word", [
    (["demo", "--pass-prob", "2"], "--pass-prob"), (["demo", "--pass-prob", "-1"], "--pass-prob"),
    (["demo", "--seed", "-1"], "--seed"), (["random-deal", "--seed", "-4"], "--seed"),
    (["random-match", "--seed", "-4"], "--seed")])
def test_out_of_range_options_are_refused(capsys, argv, word):
    with pytest.raises(SystemExit) as ei:
        main(argv)
    assert ei.value.code == 2
    assert word in capsys.readouterr().err


@pytest.mark.parametrize("command", ["random-deal", "random-match"])
def test_an_unwritable_output_is_a_message_not_a_traceback(capsys, tmp_path, command):
    bad = tmp_path / "no" / "such" / "dir" / "r.json"
    assert main([command, "-o", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and str(bad) in err


@pytest.mark.parametrize("argv", [["presets"], ["random-deal"], ["agents"]])
def test_a_closed_pipe_stops_quietly(argv):
    """``coinche-rl presets | head``: the reader is gone (here before the first write,
    so that the test does not depend on timing); no traceback."""
    import os
    import subprocess
    import sys
    read, write = os.pipe()
    os.close(read)
    try:
        r = subprocess.run([sys.executable, "-m", "coinche_rl.cli", *argv], stdout=write,
                           stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr, r.stderr
    assert r.returncode == 1


def test_no_command(capsys):
    with pytest.raises(SystemExit) as ei:
        main([])
    assert ei.value.code != 0


# --------------------------------------------------------------------- presets
def test_presets(capsys):
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    assert "ffb" in header.split() and "ffb_sa_ta" in header.split()
    assert "strains" in out and "suits_nt_at" in out and "max_bid" in out


# ------------------------------------------------------------- random records
def test_random_deal_output_replayable(tmp_path, capsys):
    path = tmp_path / "deal.json"
    assert main(["random-deal", "--seed", "8", "--rules", "ffb_sa_ta", "-o", str(path)]) == 0
    assert f"wrote {path}" in capsys.readouterr().out
    rec = load_record(str(path))
    assert rec["rules"]["preset"] == "ffb_sa_ta"
    d = replay_deal(rec)
    assert d.is_terminal
    # same seed, same record
    path2 = tmp_path / "deal2.json"
    assert main(["random-deal", "--seed", "8", "--rules", "ffb_sa_ta", "-o", str(path2)]) == 0
    assert load_record(str(path2)) == rec


def test_random_deal_to_stdout(capsys):
    assert main(["random-deal", "--seed", "2"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["format"] == "coinche-rl/deal"
    replay_deal(rec)


def test_random_match_output_replayable(tmp_path, capsys):
    path = tmp_path / "match.json"
    assert main(["random-match", "--seed", "6", "-o", str(path)]) == 0
    rec = load_record(str(path))
    out = replay_match(rec)
    assert out["winner"] in (0, 1)
    assert out["scores"] == rec["scores"]
    assert max(out["scores"]) >= out["rules"].target


# ------------------------------------------------------------------ subprocess
def test_subprocess_module_replay_and_errors(tmp_path, deal_file):
    ok = run_cli("replay", str(deal_file), cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert "deal record OK" in ok.stdout
    rec = load_record(str(deal_file))
    del rec["hands"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec), encoding="utf-8")
    r = run_cli("replay", str(bad), cwd=tmp_path)
    assert r.returncode != 0
    assert "error" in r.stderr and "hands" in r.stderr
    missing = run_cli("replay", str(tmp_path / "missing.json"), cwd=tmp_path)
    assert missing.returncode != 0 and "error" in missing.stderr
    nosuch = run_cli("demo", "--rules", "nosuch", cwd=tmp_path)
    assert nosuch.returncode == 2 and "'ffb'" in nosuch.stderr


def test_subprocess_random_match_then_replay(tmp_path):
    path = tmp_path / "m.json"
    r = run_cli("random-match", "--seed", "1", "-o", str(path), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert path.exists()
    r2 = run_cli("replay", str(path), cwd=tmp_path)
    assert r2.returncode == 0, r2.stderr
    assert "match record OK" in r2.stdout and "winner: team" in r2.stdout


def test_installed_script(tmp_path):
    script = Path(sys.executable).with_name("coinche-rl")
    if not script.exists():
        pytest.skip(f"no coinche-rl script next to {sys.executable} (package not installed)")
    r = subprocess.run([str(script), "presets"], capture_output=True, text=True, env=_env(),
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "ffb_sa_ta" in r.stdout
