"""The trainers' label workers run numpy's BLAS on one thread (issue 44 point 8): a
pool worker per core, each with a BLAS thread per core, oversubscribes the cores."""

from types import SimpleNamespace

import threadpoolctl  # a dependency of the package

from coinche_rl.train.common import LabelSource, run_with_one_blas_thread


def _blas_threads(info):
    return [i["num_threads"] for i in info if i["user_api"] == "blas"]


class _InfoSource(LabelSource):
    """Chunks that report the worker's thread pools (threadpoolctl's own function, which
    a spawned worker imports by name)."""
    job = staticmethod(threadpoolctl.threadpool_info)
    warm = staticmethod(lambda: None)

    def job_args(self, c):
        return ()


def test_a_pool_label_worker_runs_blas_on_one_thread():
    here = _blas_threads(threadpoolctl.threadpool_info())
    assert here, "numpy's BLAS is not seen by threadpoolctl"
    args = SimpleNamespace(workers=1, backend="pool", prefetch=1, address=None)
    source = _InfoSource(args, 0)
    try:
        assert _blas_threads(source.get()) == [1] * len(here)
        assert _blas_threads(source.get()) == [1] * len(here)    # for the worker's life
    finally:
        source.close()
    assert _blas_threads(threadpoolctl.threadpool_info()) == here  # the trainer untouched


def test_a_ray_label_task_runs_blas_on_one_thread_and_restores_it():
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads(threadpoolctl.threadpool_info())
        inside = _blas_threads(run_with_one_blas_thread(threadpoolctl.threadpool_info))
        assert inside == [1] * len(before)
        assert _blas_threads(threadpoolctl.threadpool_info()) == before
