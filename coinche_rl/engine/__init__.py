"""The numba engine: one deal as a fixed-size int64 state vector, stepped by kernels.

Kernels take the state ``S`` (int64, shape ``(STATE_SIZE,)``, laid out in
:mod:`~coinche_rl.engine.layout`), the rule vector ``P`` (int64,
:func:`coinche_rl.rules.params_vector`) and plain ints; they never raise and never
allocate Python objects. Randomness comes in as a seed (splitmix64 streams).

The modules, lowest first (each imports only the ones above it):

================  ===================================================================
``layout``        the state layout, its sentinels and the table of the slots' accessors;
                  ``FlatLayout``, the blocks of any flat array from their sizes
``accessors``     the named reads and writes of the slots (generated from ``layout``)
``bits``          bit counts and the random stream (splitmix64, Fisher-Yates)
``deal``          dealing: the seed -> deal map, the 3-2-3 packets, the classic deal
``declarations``  declarations (best combination, which team scores) and belotes
``auction``       the auction and the classic prise, the start of the card play
``scoring``       scoring a finished deal, the match's end, synthetic outcomes
``play``          card-play legality, the legal actions, applying an action
``views``         what a seat may know (public view) and determinisation
``simulation``    random play-outs and the batched simulations
``two``           belote for two players (its layout ``two_layout``, its accessors
                  ``two_accessors``): the family's own kernels
``entry``         the entry points every family answers (``game_apply``,
                  ``game_is_legal``, ``game_legal_mask``, ``game_public_view_into``, ...):
                  one branch on the rule vector's family to the family's kernel
``family``        :class:`~.family.Family`: what a family is (players, tricks, actions,
                  state size, phases, presets), for the layers above
================  ===================================================================

Kernels written above the engine for every family call the entry points of ``entry``
(the list is its docstring) with the family's state, and size their arrays from
``family_of(rules)``.

Everything public is re-exported here: ``from coinche_rl import engine as E`` then
``E.apply_legal_action``, ``E.hand_of``, ... (and ``E.py.hand_of``, the accessors in plain
Python for the callers that run in Python). The game's dimensions and seat arithmetic
(``N_SEATS``, ``team``, ``partner``, ...) and the rule constants are defined in
:mod:`coinche_rl.rules`, the action ids in :mod:`coinche_rl.actions`; both are
re-exported here for the callers that read them from the engine.
"""

from __future__ import annotations

from .. import actions as A  # noqa: F401  (E.A, E.R: the modules the engine reads)
from .. import rules as R  # noqa: F401
# the rule constants and action ids the kernels read, under the engine's names
from ..actions import (PASS, BID_BASE, CAPOT_BASE, COINCHE, SURCOINCHE, CARD_BASE, TAKE,
                       NAME_BASE, DECLARE, NO_DECLARE, BELOTE, NO_BELOTE, N_ACTIONS)
from ..rules import (MIN_BID_VALUE, N_BID_VALUES, CAPOT_VALUE, DIX_DE_DER, BELOTE_POINTS,
                     DEAL_POINTS, CAPOT_POINTS, CAPOT_BONUS, SCALED_AT_DEAL_POINTS, NT, AT,
                     CARD_ORDER, ABOVE, TRUMP_SUIT_MASK, ALL_CARD_POINTS, SEQ_POINTS,
                     SEQ_KEY, SEQ_USED, SEQ_POINTS_SHARE, SEQ_KEY_SHARE, SEQ_USED_SHARE,
                     CARRE_PTS, CARRE_KEYS, P_FAMILY, P_NT_AT, P_MIN_BID, P_MAX_BID,
                     P_BID_STEP, P_CAPOT_AFTER_COINCHE, P_MULT_COINCHE, P_MULT_SURCOINCHE,
                     P_DECLARATIONS, P_DECL_SHARE, P_CARRE_LOW_CANCELS, P_OPTIONAL_DECLARE,
                     P_OPTIONAL_BELOTE, P_BELOTE_TAKEABLE, P_COUNT_BELOTE,
                     P_COUNT_DECLARATIONS, P_BID_ONLY, P_FAIL_BASE, P_COINCHE_SCORING,
                     P_AT_TABLE, P_GENERALE_BONUS, P_PLAY_RULES, P_ROUNDING, P_BID_LADDER)
from ..rules import (CARDS_PER_HAND, N_SEATS, N_TEAMS, N_TRICKS, SEAT_MASK, partner,
                     seat_after, team)
from .layout import (AUCTION, PLAY, DONE, MAX_AUCTION, FlatLayout, STATE_LAYOUT, STATE_OFFSETS,
                     STATE_SIZE, NO_SEAT, NO_CARD, NO_ACTION, DECL_UNRESOLVED, DECL_NOBODY,
                     NOT_COINCHED, COINCHED, SURCOINCHED, MADE_UNSCORED, MADE_FAILED,
                     MADE_MADE, MADE_LITIGE)
from .accessors import (current_seat, set_current_seat, phase_of,
                        dealer_of, hand_of, contract_of, contract_strain, auction_length,
                        auction_action, retourne_of, prise_round, seat_declaration_points,
                        low_carre_seats, declare_decided_seats, mark_declared,
                        belote_holder_seats, belote_decided_seats, belote_announced_seats,
                        deal_made, team_score, team_card_points, set_hand, initial_hand,
                        set_initial_hand, set_auction_action, set_contract_strain,
                        set_retourne, contract_is_capot, coinche_level, trick_number,
                        team_points_won, team_tricks_won, seat_tricks_won, current_seats,
                        phases_of, deal_void, cards_in_trick, trick_leader, trick_card,
                        played_cards, winning_card, winning_seat, current_leader, trick_winner,
                        declaration_winner, declaration_cards, deck_card, litige_points,
                        declared_seats, team_declaration_points, belote_cards,
                        team_belote_points, team_raw_score, team_total, generale_seat, py)
from .bits import (kernel, popcount, lowest_card, highest_card, nth_card, rng_next,
                   rng_below, rng_seed, seed_int64, shuffle)
from .deal import (random_deck, random_deal, hands_from_deck_into, deal_into, reset_state,
                   reset_classic)
from .declarations import (hand_declarations, resolve_declarations, belote_pairs,
                           has_declaration)
from .auction import (strain_allowed, prise_options, open_bid_values, _auction_flags,
                      _start_play, set_contract, apply_auction_action, frozen_strain,
                      REFUSE_NONE, REFUSE_NOT_AUCTION, REFUSE_NOT_AN_ACTION,
                      REFUSE_PLAY_ACTION, REFUSE_PRISE_ONLY, REFUSE_NOT_PRISE, REFUSE_STRAIN,
                      REFUSE_COINCHED, REFUSE_CAPOT_BID, REFUSE_OFF_LADDER, REFUSE_NOT_HIGHER,
                      REFUSE_NO_BID, REFUSE_ALREADY_COINCHED, REFUSE_OWN_TEAM,
                      REFUSE_NOT_COINCHED, REFUSE_NOT_COINCHED_TEAM, REFUSE_TAKE_ROUND,
                      REFUSE_NAME_ROUND, REFUSE_RETOURNE_SUIT, auction_refusal)
from .play import (beats, RULE_FREE, RULE_FOLLOW, RULE_OVERTRUMP_LED, RULE_BEAT, RULE_TRUMP,
                   RULE_OVERTRUMP, RULE_UNDERTRUMP, card_play_rule, legal_cards_rule,
                   legal_cards, pending_choice, legal_play_rule, legal_play_mask,
                   legal_actions_into, is_legal, apply_action, apply_legal_action)
from .scoring import (SCORING_FFB, SCORING_CARDS_PLUS_BID, SCORING_ALL_PLUS_BID,
                      AT_SCALED_INDEX, scale_at_points, round10, score_deal, match_winner,
                      OUTCOME_CAPOT_AGAINST, OUTCOME_NORMAL, OUTCOME_CAPOT,
                      OUTCOME_GENERALE, set_outcome, outcome_score)
from .views import (NO_DECK, played_by, played_first_trick, announced_belotes,
                    shown_declarers, public_view_into, public_view, determinize_into,
                    private_choices, private_info, determinize)
from .simulation import (_auction_kth_other, random_action, play_out_stepwise, play_out,
                         simulate_random_deals, random_playouts, random_play_phase)

from .entry import (PHASE_BIDDING, PHASE_PLAY, PHASE_DONE, PHASE_EXCHANGE, REFUSE_DEAL_OVER,
                    REFUSE_CHOICE_PENDING, REFUSE_NOT_A_CHOICE, REFUSE_NOT_A_CARD,
                    REFUSE_CARD, REFUSE_EXCHANGE_PENDING, REFUSE_NO_SEVEN, HIDDEN_SIZE,
                    game_phase, game_to_act, game_dealer, game_next_dealer, game_side,
                    game_refusal, game_is_legal, game_legal_mask, game_apply, game_step,
                    game_public_view_into, game_private_into, game_determinize_into,
                    game_score, game_reward, game_new_deal, game_random_action,
                    game_random_playout)
from .family import FAMILIES, Family, family_of

globals().update(STATE_OFFSETS)     # the S_* slot offsets, as engine.S_HAND, ...
