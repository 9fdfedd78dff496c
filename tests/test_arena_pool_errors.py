"""What a script author hits with the process pool (issue 15): a script without the
``if __name__ == "__main__":`` guard, and an agent registered under that guard. Both used to
end in tracebacks from Python's multiprocessing; both now say what to do."""

import subprocess
import sys
import textwrap

import pytest


def run_script(tmp_path, body: str) -> subprocess.CompletedProcess:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(body))
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)


@pytest.mark.slow
def test_an_unguarded_script_is_told_to_add_the_main_guard(tmp_path):
    res = run_script(tmp_path, """
        from coinche_rl.arena import ArenaError, run_duplicate
        try:
            run_duplicate("heuristic", "random", 4, backend="pool", workers=1, seed=1)
        except ArenaError as e:
            print("ARENA ERROR:", e)
            raise SystemExit(3)
        print("no error")
    """)
    # the workers re-import the script and fail in Python's spawn check; the parent says why
    assert res.returncode == 3, (res.stdout, res.stderr[-2000:])
    assert "ARENA ERROR:" in res.stdout
    assert 'if __name__ == "__main__":' in res.stdout and "backend='serial'" in res.stdout


@pytest.mark.slow
def test_an_agent_registered_under_the_guard_is_named_in_the_worker_error(tmp_path):
    res = run_script(tmp_path, """
        from coinche_rl.agents import register_agent
        from coinche_rl.agents.random_agent import RandomAgent
        from coinche_rl.arena import run_duplicate

        if __name__ == "__main__":
            register_agent("mine", RandomAgent, {}, doc="a user's agent")
            try:
                run_duplicate("mine", "random", 2, backend="pool", workers=1, seed=1)
            except ValueError as e:
                print("ERROR:", e)
                raise SystemExit(3)
            print("no error")
    """)
    assert res.returncode == 3, (res.stdout, res.stderr[-2000:])
    assert "unknown agent 'mine'" in res.stdout
    assert "in a worker process" in res.stdout and "top level" in res.stdout
    # the same agent registered at the top level of the script works in the pool
    res = run_script(tmp_path, """
        from coinche_rl.agents import register_agent
        from coinche_rl.agents.random_agent import RandomAgent
        from coinche_rl.arena import run_duplicate

        register_agent("mine", RandomAgent, {}, doc="a user's agent")
        if __name__ == "__main__":
            r = run_duplicate("mine", "random", 2, backend="pool", workers=1, seed=1)
            print("pairs", r.n)
    """)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "pairs 2" in res.stdout
