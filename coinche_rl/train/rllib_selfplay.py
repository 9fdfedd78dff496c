"""Self-play with RLlib (new API stack) on a local Ray cluster
(``python -m coinche_rl.train.rllib_selfplay``; ``make rllib-selfplay`` builds the venv
and runs it).

What it does, in one command:

1. starts a local Ray cluster: a head and ``nodes - 1`` more node processes on this
   machine (``ray start --head`` / ``ray start --address``, ``cpus_per_node`` CPUs each,
   each in its own process group, in a temporary folder of its own), and connects to
   it (``ray.init(address=...)``); ``--address`` uses a running cluster instead;
2. trains PPO with :class:`~coinche_rl.train.rllib.MaskedActorCritic` on
   :class:`~coinche_rl.train.rllib.CoincheMultiAgentEnv` with ``env_runners`` env
   runners spread over the nodes: the learning module ``main`` plays one team of each
   deal, the other team is the heuristic (:class:`~coinche_rl.train.rllib.AgentModule`,
   probability ``p_heuristic``) or a frozen past snapshot of ``main`` from a league of
   ``league`` slots (every ``snapshot_every`` iterations ``main``'s weights are copied
   into the oldest slot; at the start the slots hold untrained networks);
3. every ``eval_every`` iterations, plays ``main`` (greedy, as a
   :class:`~coinche_rl.agents.PolicyAgent`) in paired duplicates against ``random``
   and ``heuristic`` (:func:`coinche_rl.arena.run_duplicate`, ``eval_deals`` deal
   pairs each, the same deals every time) and appends the margins per deal with their
   95% intervals to ``<out>/curve.csv``; ``<out>/summary.json`` holds the settings,
   the cluster (nodes, the node of each env runner), the timings and the last margins,
   ``<out>/main.pt`` the last weights of ``main``
   (``policy_agent(torch.load(path), ...)`` of :mod:`coinche_rl.train.rllib` plays them);
4. stops the cluster it started, whatever happens (``finally``): each node's process
   group is ended by its id (never ``ray stop``, which ends every Ray process of the
   machine, other users' clusters included).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from ..files import atomic_write, atomic_write_text

__all__ = ["Settings", "LocalCluster", "train", "main"]


@dataclass
class Settings:
    """The run's settings (each a ``--flag`` of the command line)."""

    #: training iterations (one PPO update each)
    iterations: int = 120
    #: rule preset (four-player: the heuristic acts from the public state)
    rules: str = "ffb"
    #: Ray nodes started on this machine (a head and nodes - 1 more), CPUs each
    nodes: int = 2
    cpus_per_node: int = 1
    #: a running cluster's address instead of starting one
    address: Optional[str] = None
    #: remote env runners (one CPU each) and envs in each
    env_runners: int = 2
    envs_per_runner: int = 4
    #: env steps (one seat's action each) per PPO update, minibatch, epochs
    train_batch: int = 2000
    minibatch: int = 250
    epochs: int = 4
    lr: float = 3e-4
    entropy_coeff: float = 0.01
    #: hidden layer widths of the policy and value networks
    hidden: str = "256,256"
    #: the league: frozen snapshot slots, iterations between snapshots, the heuristic's
    #: share of the opponents
    league: int = 4
    snapshot_every: int = 3
    p_heuristic: float = 0.3
    #: evaluation: every eval_every iterations (and after the last), deal pairs per
    #: opponent
    eval_every: int = 20
    eval_deals: int = 100
    #: the output folder (curve.csv, summary.json, main.pt)
    out: str = "runs/rllib_selfplay"
    seed: int = 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalCluster:
    """A Ray cluster of ``nodes`` node processes on this machine (``ray start --block``,
    each in a process group of its own: :meth:`stop` ends exactly those), ``cpus`` CPUs
    each, with its own temporary folder and ports."""

    def __init__(self, nodes: int = 2, cpus: int = 1, log=None):
        if nodes < 1 or cpus < 1:
            raise ValueError(f"LocalCluster: nodes and cpus must be >= 1, not {nodes}, {cpus}")
        self.nodes, self.cpus = int(nodes), int(cpus)
        self.procs: List[subprocess.Popen] = []
        self.address: Optional[str] = None
        self.temp_dir: Optional[str] = None
        self.log = log if log is not None else sys.stderr
        # Ray >= 2.52 turns token authentication on for `ray start`: the cluster's own
        # token, in the environment of its nodes and of this process (never the shared
        # ~/.ray/auth_token, which another cluster's start may rewrite)
        self.auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
        self._saved_env: Optional[dict] = None

    def _node_args(self) -> List[str]:
        args = [f"--num-cpus={self.cpus}", "--num-gpus=0", "--node-ip-address=127.0.0.1",
                "--disable-usage-stats", "--block", "--object-store-memory=100000000"]
        for flag in ("node-manager-port", "object-manager-port", "dashboard-agent-listen-port",
                     "dashboard-agent-grpc-port", "runtime-env-agent-port",
                     "metrics-export-port"):
            args.append(f"--{flag}={_free_port()}")
        return args

    def _spawn(self, args: List[str]) -> None:
        ray_cli = Path(sys.executable).with_name("ray")
        self.procs.append(subprocess.Popen([str(ray_cli), "start", *args],
                                           stdout=self.log, stderr=subprocess.STDOUT,
                                           env={**os.environ, **self.auth},
                                           start_new_session=True))

    def start(self, timeout: float = 180.0) -> str:
        """Start the nodes, wait for all of them, connect; the address."""
        import ray

        self.temp_dir = tempfile.mkdtemp(prefix="crl-ray-", dir="/tmp")
        port = _free_port()
        self.address = f"127.0.0.1:{port}"
        self._spawn(["--head", f"--port={port}", "--include-dashboard=false",
                     f"--temp-dir={self.temp_dir}",
                     *self._node_args()])
        deadline = time.monotonic() + timeout
        while True:                               # the head's GCS answers
            self._check_alive()
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the Ray head did not start in {timeout:.0f} s")
                time.sleep(0.5)
        for _ in range(self.nodes - 1):
            self._spawn([f"--address={self.address}", *self._node_args()])
        self._saved_env = {k: os.environ.get(k) for k in self.auth}
        os.environ.update(self.auth)
        _refresh_ray_config()
        ray.init(address=self.address, log_to_driver=False)
        while len([n for n in ray.nodes() if n["Alive"]]) < self.nodes:
            self._check_alive()
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.nodes} Ray nodes did not join in {timeout:.0f} s")
            time.sleep(0.5)
        return self.address

    def _check_alive(self) -> None:
        for p in self.procs:
            if p.poll() is not None:
                raise RuntimeError(f"a Ray node process ended (exit status {p.returncode}): "
                                   f"{' '.join(map(str, p.args))}")

    def stop(self) -> None:
        """Disconnect and end every process of every node's process group (SIGTERM,
        then SIGKILL after 20 s); remove the temporary folder."""
        try:
            import ray
            ray.shutdown()
        except Exception:                   # the cluster may be half started
            pass
        for sig, wait in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 5.0)):
            live = [p for p in self.procs if _group_alive(p.pid)]
            for p in reversed(live):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    pass
            end = time.monotonic() + wait
            while any(_group_alive(p.pid) for p in live) and time.monotonic() < end:
                for p in live:
                    p.poll()
                time.sleep(0.2)
        for p in self.procs:
            p.poll()
        self.procs = []
        for k, v in (self._saved_env or {}).items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        self._saved_env = None
        _refresh_ray_config()
        if self.temp_dir:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None


def _refresh_ray_config() -> None:
    """Make this process read the authentication settings of its environment again
    (Ray reads them once, when it is imported; its own token setup refreshes them so)."""
    try:
        from ray._raylet import Config
        Config.initialize("")
    except (ImportError, AttributeError):    # another Ray: read at ray.init
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie leader still counts: reap it when it is ours
    try:
        pid, _ = os.waitpid(pgid, os.WNOHANG)
    except ChildProcessError:
        pid = 0
    if pid == pgid:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
    return True


def _main_state(algo) -> dict:
    from .rllib import MAIN
    state = algo.learner_group.get_state(components=f"learner/rl_module/{MAIN}")
    return state["learner"]["rl_module"][MAIN]


def _estimate(est) -> dict:
    return {"mean": round(est.mean, 2), "half_width": round(est.half_width, 2), "n": est.n}


def train(s: Settings, log=print) -> dict:
    """Run the whole example (module docstring) with settings ``s``: the summary."""
    import ray
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .rllib import (MAIN, AgentModule, CoincheMultiAgentEnv, Evaluation,
                        MaskedActorCritic, league_mapping, league_slots)

    out = Path(s.out)
    out.mkdir(parents=True, exist_ok=True)
    # the learner and the evaluations share this process's core with the env runners
    torch.set_num_threads(1)
    hidden = [int(h) for h in s.hidden.split(",") if h.strip()]
    env_config = {"rules": s.rules, "public_state": True, "normalize_reward": True}
    probe = CoincheMultiAgentEnv(env_config)
    obs_space, act_space = probe.observation_spaces["player_0"], probe.action_spaces["player_0"]
    slots = league_slots(s.league)
    learned = RLModuleSpec(module_class=MaskedActorCritic, model_config={"hidden": hidden})
    specs = {MAIN: learned, **{k: learned for k in slots},
             "heuristic": RLModuleSpec(module_class=AgentModule,
                                       model_config={"rules": s.rules, "spec": "heuristic"})}
    config = (
        PPOConfig()
        # RLlib's env check steps actions drawn from the whole action space, which a
        # masked env refuses (IllegalActionError): the adapter's contract is tested by
        # tests/test_rllib_env.py instead
        .environment(CoincheMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=s.env_runners, num_envs_per_env_runner=s.envs_per_runner,
                     num_cpus_per_env_runner=1, rollout_fragment_length="auto")
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=s.train_batch, minibatch_size=s.minibatch,
                  num_epochs=s.epochs, lr=s.lr, gamma=1.0, lambda_=0.95,
                  entropy_coeff=s.entropy_coeff, vf_loss_coeff=0.5)
        .multi_agent(policies=set(specs),
                     policy_mapping_fn=league_mapping(s.league, s.p_heuristic),
                     policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .debugging(seed=s.seed)
    )

    cluster = None
    curve_path = out / "curve.csv"
    # env_steps_per_s: the env steps over the time spent training (evaluations left out);
    # wall_s: since training started, evaluations included
    fields = ["iteration", "env_steps", "wall_s", "env_steps_per_s", "main_return_mean",
              "vs_random", "vs_random_ci", "vs_heuristic", "vs_heuristic_ci"]
    summary = {"settings": dataclasses.asdict(s), "evaluations": []}
    t0 = time.monotonic()
    try:
        if s.address is None:
            cluster = LocalCluster(s.nodes, s.cpus_per_node,
                                   log=open(out / "ray-nodes.log", "w"))
            address = cluster.start()
        else:
            ray.init(address=s.address, log_to_driver=False)
            address = s.address
        nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
        log(f"Ray cluster at {address}: {len(nodes)} nodes, "
            f"{ray.cluster_resources().get('CPU', 0):g} CPUs ({time.monotonic() - t0:.0f} s)")
        algo = config.build_algo()
        runner_nodes = algo.env_runner_group.foreach_env_runner(
            lambda er: __import__("ray").get_runtime_context().get_node_id(),
            local_env_runner=False)
        summary["cluster"] = {"address": address, "nodes": len(nodes),
                              "env_runners": len(runner_nodes),
                              "env_runner_nodes": [nodes.index(n) if n in nodes else n
                                                   for n in runner_nodes]}
        log(f"{len(runner_nodes)} env runners on nodes {summary['cluster']['env_runner_nodes']} "
            f"({time.monotonic() - t0:.0f} s)")

        eval_s = [0.0]                      # the time spent evaluating, out of the rate
        evaluation = Evaluation(obs_space, act_space, {"hidden": hidden}, rules=s.rules,
                                deals=s.eval_deals, seed=s.seed + 1)

        def evaluate(it: int, row: dict) -> None:
            t = time.monotonic()
            ev = {"iteration": it}
            for opp, est in evaluation(_main_state(algo)).items():
                ev[f"vs_{opp}"] = _estimate(est)
                row[f"vs_{opp}"] = ev[f"vs_{opp}"]["mean"]
                row[f"vs_{opp}_ci"] = ev[f"vs_{opp}"]["half_width"]
            summary["evaluations"].append(ev)
            eval_s[0] += time.monotonic() - t

        with open(curve_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            row = {"iteration": 0, "env_steps": 0, "wall_s": 0.0}
            evaluate(0, row)
            w.writerow(row)
            f.flush()
            t_train, steps, eval_s[0] = time.monotonic(), 0, 0.0
            for it in range(1, s.iterations + 1):
                result = algo.train()
                er = result.get("env_runners", {})
                steps = int(er.get("num_env_steps_sampled_lifetime", steps))
                wall = time.monotonic() - t_train
                busy = wall - eval_s[0]         # training: sampling, updates, snapshots
                row = {"iteration": it, "env_steps": steps, "wall_s": round(wall, 1),
                       "env_steps_per_s": round(steps / busy, 1) if busy > 0 else "",
                       "main_return_mean": _round(er.get("module_episode_returns_mean",
                                                         {}).get(MAIN))}
                if it % s.snapshot_every == 0 and slots:
                    slot = slots[(it // s.snapshot_every - 1) % len(slots)]
                    algo.set_state({"learner_group": {"learner": {"rl_module": {
                        slot: _main_state(algo)}}}})
                    row_note = f", main -> {slot}"
                else:
                    row_note = ""
                if it % s.eval_every == 0 or it == s.iterations:
                    evaluate(it, row)
                w.writerow(row)
                f.flush()
                log(f"iteration {it}: {steps} env steps, {wall:.0f} s, "
                    f"{row['env_steps_per_s']} steps/s, main return {row['main_return_mean']}"
                    + (f", vs random {row['vs_random']} ± {row['vs_random_ci']}, "
                       f"vs heuristic {row['vs_heuristic']} ± {row['vs_heuristic_ci']}"
                       if "vs_random" in row else "") + row_note)
        main_state = _main_state(algo)
        atomic_write(out / "main.pt", lambda f: torch.save(main_state, f))
        wall = time.monotonic() - t_train
        summary.update(iterations=s.iterations, env_steps=steps, train_wall_s=round(wall, 1),
                       eval_wall_s=round(eval_s[0], 1),
                       env_steps_per_s=round(steps / max(wall - eval_s[0], 1e-9), 1),
                       total_wall_s=round(time.monotonic() - t0, 1),
                       last=summary["evaluations"][-1])
        algo.stop()
    finally:
        if cluster is not None:
            cluster.stop()
        else:
            ray.shutdown()
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    log(f"wrote {curve_path}, {out / 'summary.json'}, {out / 'main.pt'}")
    return summary


def _round(x):
    return "" if x is None else round(float(x), 3)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m coinche_rl.train.rllib_selfplay",
                                description=__doc__.split("\n\n")[0])
    for f in dataclasses.fields(Settings):
        kind = {"int": int, "float": float}.get(str(f.type), str)
        p.add_argument("--" + f.name.replace("_", "-"), type=kind, default=f.default,
                       help=f"(default: {f.default})")
    return p


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    settings = Settings(**vars(args))
    train(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
