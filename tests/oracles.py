"""Test oracles: reference computations that only the tests use, kept out of the
package's hot modules.

* :func:`auction_legal_count` / :func:`auction_legal_nth`: the legal auction actions
  counted and enumerated in increasing id order without building the mask, on the
  engine's own helpers (``engine._auction_flags``, ``engine.open_bid_values`` and
  ``engine._auction_kth_other``, the enumeration the rollouts' auction draw uses);
  ``tests/test_engine_paths.py`` checks them against the legal-action mask.
"""

from coinche_rl.engine import PASS, _auction_flags, _auction_kth_other, kernel, open_bid_values, popcount

__all__ = ["auction_legal_count", "auction_legal_nth"]


@kernel
def auction_legal_count(S, P):
    """Number of legal auction actions (pass included), without building the mask."""
    bids_open, capot_ok, coinche_ok, surcoinche_ok, ns = _auction_flags(S, P)
    cnt = 1
    if bids_open:
        cnt += ns * popcount(open_bid_values(S, P))
    if capot_ok:
        cnt += ns
    if coinche_ok:
        cnt += 1
    if surcoinche_ok:
        cnt += 1
    return cnt


@kernel
def auction_legal_nth(S, P, k):
    """The ``k``-th legal auction action in increasing id order (0 is pass)."""
    if k == 0:
        return PASS
    bids_open, capot_ok, coinche_ok, surcoinche_ok, ns = _auction_flags(S, P)
    values = open_bid_values(S, P) if bids_open else 0
    n_other = ns * popcount(values) + (ns if capot_ok else 0) + (1 if coinche_ok else 0) \
        + (1 if surcoinche_ok else 0)
    if k > n_other:
        return -1
    return _auction_kth_other(k - 1, values, ns, capot_ok, coinche_ok)
