"""Test oracles: reference computations that only the tests use, kept out of the
package's hot modules.

* :func:`auction_legal_count` / :func:`auction_legal_nth`: the legal auction actions
  counted and enumerated in increasing id order without building the mask, on the
  engine's own helpers (``engine._auction_flags``, ``engine.open_bid_values`` and
  ``engine._auction_kth_other``, the enumeration the rollouts' auction draw uses);
  ``tests/test_engine_paths.py`` checks them against the legal-action mask.
* :func:`written_out_inference`: the voids and ceilings of the play as they were written
  out rule by rule before the engine derived them from the legality kernel
  (``tests/test_single_source.py`` checks the derivation gives the same values).
* :func:`numpy_hands`: random hands for test data, independent of the engine's stream.
"""

from coinche_rl.engine import PASS, _auction_flags, _auction_kth_other, kernel, open_bid_values, popcount

__all__ = ["auction_legal_count", "auction_legal_nth", "written_out_inference", "numpy_hands"]


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


def written_out_inference(S, P, strain):
    """The voids and ceilings of the play as they were written out by hand (every rule of
    RULES.md §6 restated as an inference) before ``inference.inferred_voids_ceilings``
    derived them from the legality kernel: ``(voids, ceil)``, ``voids[p]`` suit bits and
    ``ceil[p][s]`` strengths (8: nothing known). Plain Python; reads the state's slots."""
    from coinche_rl import engine as E
    from coinche_rl.rules import AT, CARD_ORDER, PLAY_MUST_UNDERTRUMP, PLAY_OVERTRUMP_PARTNER

    voids = [0, 0, 0, 0]
    ceil = [[8] * 4 for _ in range(4)]
    overtrump_partner = int(P[E.P_PLAY_RULES]) & PLAY_OVERTRUMP_PARTNER != 0
    must_undertrump = int(P[E.P_PLAY_RULES]) & PLAY_MUST_UNDERTRUMP != 0
    for t in range(8):
        leader = int(S[E.S_TRICK_LEADERS + t])
        if leader < 0:
            break
        c0 = int(S[E.S_PLAYS + 4 * t])
        if c0 < 0:
            break
        led = c0 >> 3
        win_seat, win = leader, c0
        for i in range(1, 4):
            c = int(S[E.S_PLAYS + 4 * t + i])
            if c < 0:
                break
            p = (leader + i) & 3
            suit = c >> 3
            partner_master = win_seat == ((p + 2) & 3)
            exempt = partner_master and not overtrump_partner
            win_order = int(CARD_ORDER[strain, win])
            lower = int(CARD_ORDER[strain, c]) < win_order
            if suit != led:
                voids[p] |= 1 << led
            if strain < 4:
                if suit == led:
                    if led == strain and not exempt and lower:
                        ceil[p][strain] = min(ceil[p][strain], win_order)
                elif not partner_master:
                    win_is_trump = (win >> 3) == strain
                    if suit == strain:
                        if win_is_trump and lower:
                            ceil[p][strain] = min(ceil[p][strain], win_order)
                    elif not win_is_trump or must_undertrump:
                        voids[p] |= 1 << strain
                    else:
                        ceil[p][strain] = min(ceil[p][strain], win_order)
            elif strain == AT:
                if suit == led and not exempt and lower:
                    ceil[p][led] = min(ceil[p][led], win_order)
            if E.beats(c, win, strain):
                win_seat, win = p, c
    return voids, ceil


def numpy_hands(rng) -> list:
    """Four random 8-card hands (masks) from a numpy Generator: test data drawn
    independently of the engine's random stream."""
    perm = rng.permutation(32)
    return [int(sum(1 << int(c) for c in perm[8 * s:8 * s + 8])) for s in range(4)]
