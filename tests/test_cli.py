"""The ``coinche-rl`` command line, in-process (``coinche_rl.cli.main``) and as a
subprocess (``python -m coinche_rl.cli`` and the installed script)."""

from __future__ import annotations

import argparse
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
    assert "argument --deals: must be at least 1, got 0" in capsys.readouterr().err


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


HAND = "JH 9H AH TH 7S 8D KC QC"
AT_LEAST_1, AT_LEAST_0, SEAT = "must be at least 1, got", "must be at least 0, got", "must be 0..3, got"
#: (command line before the option, option, bad value, message after "argument OPTION: ")
BAD_VALUES = [
    (["demo"], "--deals", "0", f"{AT_LEAST_1} 0"),
    (["demo"], "--deals", "-3", f"{AT_LEAST_1} -3"),
    (["demo"], "--deals", "many", "expected an integer, got 'many'"),
    (["demo"], "--seed", "-1", f"{AT_LEAST_0} -1"),
    (["demo"], "--pass-prob", "2", "must be a probability in [0, 1], got 2"),
    (["demo"], "--pass-prob", "-0.1", "must be a probability in [0, 1], got -0.1"),
    (["demo"], "--pass-prob", "nan", "must be a probability in [0, 1], got nan"),
    (["demo"], "--pass-prob", "often", "expected a number, got 'often'"),
    (["replay", "results.jsonl"], "--pair", "-1", f"{AT_LEAST_0} -1"),
    (["random-deal"], "--seed", "-4", f"{AT_LEAST_0} -4"),
    (["random-match"], "--seed", "-4", f"{AT_LEAST_0} -4"),
    (["random-match"], "--seed", "1.5", "expected an integer, got '1.5'"),
    (["evaluate", HAND], "--seat", "4", f"{SEAT} 4"),
    (["evaluate", HAND], "--seat", "-1", f"{SEAT} -1"),
    (["evaluate", HAND], "--dealer", "9", f"{SEAT} 9"),
    (["evaluate", HAND], "--samples", "0", f"{AT_LEAST_1} 0"),
    (["evaluate", HAND], "--seed", "-2", f"{AT_LEAST_0} -2"),
    (["evaluate", HAND], "--min-suit-length", "9", "must be 0..8, got 9"),
    (["evaluate", HAND], "--min-suit-length", "-1", "must be 0..8, got -1"),
    (["evaluate", HAND], "--coinche", "3", "invalid choice: 3"),
    (["evaluate", HAND], "--threads", "0", f"{AT_LEAST_1} 0"),
    (["tournament"], "--deals", "0", f"{AT_LEAST_1} 0"),
    (["tournament"], "--python-deals", "0", f"{AT_LEAST_1} 0"),
    (["tournament"], "--target", "0", f"{AT_LEAST_1} 0"),
    (["tournament"], "--seed", "-1", f"{AT_LEAST_0} -1"),
    (["tournament"], "--workers", "0", f"{AT_LEAST_1} 0"),
    (["tournament"], "--tournaments", "0", f"{AT_LEAST_1} 0"),
    (["tournament"], "--players", "12", "invalid choice: 12"),
    (["tournament"], "--max-deals", "0", f"{AT_LEAST_1} 0"),
]


@pytest.mark.parametrize("before, option, value, message", BAD_VALUES,
                         ids=[f"{b[0]} {o} {v}" for b, o, v, _ in BAD_VALUES])
def test_out_of_range_options_are_refused(capsys, before, option, value, message):
    """A usage error (exit 2) under the subcommand's own usage line, naming the option,
    the value and the allowed range; nothing is run."""
    with pytest.raises(SystemExit) as ei:
        main([*before, option, value])
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: coinche-rl {before[0]} "), err
    assert f"coinche-rl {before[0]}: error: argument {option}: {message}" in err, err


def _subcommands():
    from coinche_rl.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


EXISTING = ["demo", "replay", "random-deal", "random-match", "presets", "agents", "evaluate",
            "tournament", "train", "bench", "warmup"]
#: the subcommands of the parser (those added later included)
COMMANDS = list(dict.fromkeys(EXISTING + list(_subcommands())))


def test_every_numeric_option_is_range_checked():
    """No subcommand takes a bare int or float: each numeric option has a range type
    (or choices), so that a bad value is a usage error, not a traceback or a silent run."""
    bare = [f"{name} {'/'.join(a.option_strings) or a.dest}"
            for name, p in _subcommands().items() for a in p._actions
            if a.type in (int, float) and not a.choices]
    assert not bare, f"numeric options without a range check: {bare}"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_has_help(command, capsys):
    """Every option and argument of every subcommand has a help text, shown by --help."""
    parser = _subcommands()[command]
    missing = [a.option_strings or [a.dest] for a in parser._actions
               if not isinstance(a, argparse._HelpAction)
               and (not a.help or a.help == argparse.SUPPRESS)]
    assert not missing, f"coinche-rl {command}: options without help: {missing}"
    with pytest.raises(SystemExit) as ei:
        main([command, "--help"])
    assert ei.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: coinche-rl {command}")
    for a in parser._actions:
        for opt in a.option_strings:
            assert opt in out
        if a.help and not isinstance(a, argparse._HelpAction):
            first_words = " ".join(a.help.split()[:3]).replace("%%", "%")
            assert first_words in " ".join(out.split()), (command, a.option_strings, first_words)


def test_every_subcommand_has_help():
    from coinche_rl.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    assert all(helps.get(name) for name in sub.choices), helps


def test_a_conflict_between_options_shows_the_subcommand_usage(capsys):
    with pytest.raises(SystemExit) as ei:
        main(["tournament", "--address", "127.0.0.1:6379"])
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: coinche-rl tournament ")
    assert "coinche-rl tournament: error: --address is for --backend ray" in err


def test_the_roster_note_is_one_line_per_reason():
    from coinche_rl.cli.tournament import _roster_note
    missing = ("ColverNotInstalledError: the colver:* agents need the optional package colver "
               "(a Rust belote engine, not a dependency of coinche-rl): pip install colver  "
               "(No module named 'colver'); colver plays one rule set, the 'colver' preset "
               "(suits only, bids 80..160 and capot, no declarations, automatic belote, FFB "
               "card play): select it with --rules colver (coinche-rl tournament), "
               "preset='colver' (coinche_rl.arena) or get_rules('colver')")
    names = ("heuristic", "ismcts", "maxi", "rule")
    note = _roster_note([f"colver:{n}: {missing}" for n in names])
    # an optional package that is not installed: one line, its install command whole
    assert note == ("(skipped colver:heuristic, colver:ismcts, colver:maxi, colver:rule: the "
                    "optional package colver is not installed; pip install colver adds them)")
    # another reason (an agent unable to play these rules): its names and its reason, one
    # line per distinct reason, never cut inside a command
    other = "NeuralError: the nn net was trained for 'ffb' rules; use nn:any_rules=true"
    note = _roster_note([f"colver:{n}: {missing}" for n in names] + [f"nn: {other}"])
    lines = note.splitlines()
    assert len(lines) == 2 and lines[1] == f"(skipped nn: {other})"


@pytest.mark.parametrize("command", ["random-deal", "random-match"])
def test_an_unwritable_output_is_a_message_not_a_traceback(capsys, tmp_path, command):
    bad = tmp_path / "no" / "such" / "dir" / "r.json"
    assert main([command, "-o", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and str(bad) in err


@pytest.mark.slow
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
    from coinche_rl.rules import PRESETS
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(map(len, lines)) <= 100, max(lines, key=len)
    headers = [line.split(" | ") for line in lines if line.startswith("parameter ")]
    assert [n.strip() for h in headers for n in h[1:]] == list(PRESETS)   # each once, in order
    assert "strains" in out and "suits_nt_at" in out and "max_bid" in out
    assert "--rules changes any parameter: --rules ffb:must_undertrump=true,target=2000" in out
    # every parameter of every preset, its value in the preset's column
    for h in headers:
        start = lines.index(" | ".join(h))
        for line in lines[start + 2:start + 2 + len(PRESETS["ffb"].to_dict()) - 1]:
            cells = [c.strip() for c in line.split(" | ")]
            for name, cell in zip(h[1:], cells[1:]):
                assert cell == str(PRESETS[name.strip()].to_dict()[cells[0]])


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
@pytest.mark.slow
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


@pytest.mark.slow
def test_subprocess_random_match_then_replay(tmp_path):
    path = tmp_path / "m.json"
    r = run_cli("random-match", "--seed", "1", "-o", str(path), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert path.exists()
    r2 = run_cli("replay", str(path), cwd=tmp_path)
    assert r2.returncode == 0, r2.stderr
    assert "match record OK" in r2.stdout and "winner: team" in r2.stdout


@pytest.mark.slow
def test_installed_script(tmp_path):
    script = Path(sys.executable).with_name("coinche-rl")
    if not script.exists():
        pytest.skip(f"no coinche-rl script next to {sys.executable} (package not installed)")
    r = subprocess.run([str(script), "presets"], capture_output=True, text=True, env=_env(),
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "ffb_sa_ta" in r.stdout


# ------------------------------------------------------------ --rules overrides
def _rules_options():
    """``(command, option)`` of every subcommand option that takes a rule set (the option
    as argparse names it in errors: ``--preset/--rules``)."""
    return [(name, "/".join(a.option_strings)) for name, p in _subcommands().items()
            for a in p._actions if "--rules" in a.option_strings]


def test_every_rules_option_is_found():
    # the commands that take --rules today (one added later is checked as well)
    assert {c for c, _ in _rules_options()} >= {"demo", "random-deal", "random-match",
                                                "tournament", "evaluate", "play"}


@pytest.mark.parametrize("command, option", _rules_options())
def test_every_rules_option_takes_overrides(command, option):
    """``--rules ffb:must_undertrump=true,target=2000``: every RuleSet field, typed from
    the field's type, validated by the RuleSet."""
    from coinche_rl.cli import build_parser
    from coinche_rl.rules import get_rules
    before = {"evaluate": ["evaluate", HAND], "replay": ["replay", "x.json"]}.get(command, [command])
    args = build_parser().parse_args(
        [*before, "--rules", "ffb:must_undertrump=true,target=2000,multipliers=2/3"])
    rules = vars(args)[_subcommands()[command]._option_string_actions["--rules"].dest]
    assert rules == get_rules("ffb", must_undertrump=True, target=2000, multipliers=(2, 3))


BAD_RULES = [
    ("ffb:trget=2000", "unknown field 'trget': valid fields are family, strains, min_bid,"),
    ("ffb:must_undertrump=maybe", "must_undertrump='maybe': expected true or false"),
    ("ffb:target=lots", "target='lots': expected an integer"),
    ("ffb:strains=all", "strains='all': expected one of suits, suits_nt_at"),
    ("ffb:min_bid=170", "min_bid=170 must not exceed max_bid=160"),       # the RuleSet's check
    ("ffb:target", "'target' is not FIELD=VALUE"),
    ("target=2000", "give the preset first, then the overrides after a colon, e.g. ffb:target=2000"),
    ("nosuch:target=2000", "unknown rule preset 'nosuch': valid presets are"),
]


@pytest.mark.parametrize("command, option", _rules_options())
@pytest.mark.parametrize("text, message", BAD_RULES, ids=[t for t, _ in BAD_RULES])
def test_a_bad_rules_override_is_one_line(command, option, text, message, capsys):
    before = {"evaluate": ["evaluate", HAND]}.get(command, [command])
    with pytest.raises(SystemExit) as ei:
        main([*before, "--rules", text])
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: coinche-rl {command} ")
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"coinche-rl {command}: error: argument {option}: ") and message in last, err
    assert "Traceback" not in err


def test_rules_overrides_reach_the_game(tmp_path, capsys):
    """The rule set built from the text is the one played: a record keeps the overrides
    and replays under them; the demo and the play say which rules they use."""
    path = tmp_path / "d.json"
    assert main(["random-match", "--seed", "3", "--rules", "ffb:target=300,must_undertrump=yes",
                 "-o", str(path)]) == 0
    rec = load_record(str(path))
    assert rec["rules"]["preset"] == "ffb"
    assert rec["rules"]["overrides"] == {"must_undertrump": True, "target": 300}
    m = replay_match(rec)
    assert m["rules"].target == 300 and m["rules"].must_undertrump
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    assert "rules 'ffb:must_undertrump=true,target=300'" in capsys.readouterr().out
    assert main(["demo", "--deals", "200", "--rules", "ffb:max_bid=180"]) == 0
    out = capsys.readouterr().out
    assert "rules 'ffb:max_bid=180'" in out


def test_train_refuses_rules_overrides_with_a_message(capsys):
    # a network is trained for a preset; the message says so before torch is looked for
    for what, argv in (("play", ["--rules", "ffb:target=2000"]),
                       ("bid", ["--rules=ffb:must_undertrump=true"]),
                       ("belief", ["--rules", "ffb:target=2000"])):
        assert main(["train", what, *argv, "--minutes", "1"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("coinche-rl: error: train --rules ffb:") and "--rules ffb " in err
        assert len(err.strip().splitlines()) == 1


def test_version(capsys):
    import coinche_rl
    with pytest.raises(SystemExit) as ei:
        main(["--version"])
    assert ei.value.code == 0
    assert capsys.readouterr().out.strip() == f"coinche-rl {coinche_rl.__version__}"
    # the one version: the package's and the project metadata's agree
    import re
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^version = "([^"]+)"', text, re.M).group(1) == coinche_rl.__version__


# ---------------------------------------------------------- demo, replay, roster
def test_demo_value_bands_come_from_the_rules(capsys):
    from coinche_rl.cli.demo import value_bands
    from coinche_rl.rules import get_rules
    assert [b[2] for b in value_bands(get_rules("ffb"))] == ["80-100", "110-130", "140-160", "capot"]
    assert [b[2] for b in value_bands(get_rules("ffb", max_bid=180))][2] == "140-180"
    assert [b[2] for b in value_bands(get_rules("ffb", min_bid=90, max_bid=170, bid_step=20))] \
        == ["90", "110-130", "150-170", "capot"]
    assert value_bands(get_rules("classic")) == []
    assert main(["demo", "--deals", "3000", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "140-160" in out and "140-180" not in out


def test_replay_of_a_missing_file_names_it_once(tmp_path, capsys):
    missing = tmp_path / "nothere.json"
    assert main(["replay", str(missing)]) == 1
    err = capsys.readouterr().err
    assert err.count("nothere.json") == 1, err
    assert err.startswith(f"coinche-rl: error: {missing}: cannot read")
