// coinche-rl serve: the page. Plain JavaScript, no build step. Every card, action and
// rule figure comes from the server (/api/meta, the views); this file only draws them.
"use strict";

const S = {
  meta: null,          // /api/meta
  cards: {},           // card text -> {id, suit, rank, ...}
  ws: null,            // the game socket
  play: null,          // the last play view
  pending: null,       // what to do with the next record message: "download" | "replay"
  replay: null,        // {record, deals (timeline), deal, step, position, title}
};

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
// where each seat sits seen from a chair, by the number of players: the next seat on the right
const POSITIONS = {4: ["bottom", "right", "top", "left"], 2: ["bottom", "top"]};
const range = (n) => Array.from({length: n}, (_, i) => i);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// a card drawn in SVG: its text ("JH") looked up in the server's deck; null: a back
function cardSVG(text, opts = {}) {
  const s = svg("svg", {viewBox: "0 0 60 84", class: "card"});
  if (text === null) {
    s.append(svg("rect", {x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#7a1f2b", stroke: "#fff", "stroke-width": 2}));
    s.append(svg("rect", {x: 7, y: 7, width: 46, height: 70, rx: 4, fill: "none", stroke: "#e9c9a0", "stroke-width": 1.5}));
    s.classList.add("back");
    return s;
  }
  const card = S.cards[text];
  const suit = S.meta.suits[card.suit];
  const color = (suit.letter === "H" || suit.letter === "D") ? "#c62828" : "#111";
  const rank = card.rank === "T" ? "10" : card.rank;
  s.append(svg("rect", {x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#fff", stroke: "#444", "stroke-width": 1, class: "face"}));
  s.append(svg("text", {x: 5, y: 17, "font-size": 15, "font-weight": "bold", fill: color, "font-family": "sans-serif"}, rank));
  s.append(svg("text", {x: 5, y: 31, "font-size": 13, fill: color}, suit.symbol));
  s.append(svg("text", {x: 33, y: 66, "font-size": 30, fill: color, "text-anchor": "middle"}, suit.symbol));
  s.append(svg("title", {}, `${card.rank_name} of ${suit.name}`));
  s.setAttribute("data-card", text);
  if (opts.actionId !== undefined) {
    s.classList.add("legal");
    s.setAttribute("data-action", opts.actionId);
    s.addEventListener("click", () => opts.onClick(opts.actionId));
  } else if (opts.dim) {
    s.classList.add("dim");
  }
  return s;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.classList.add("show");
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => box.classList.remove("show"), 6000);
}

// a success clears the banner of an earlier failure
function clearError() {
  clearTimeout(showError.timer);
  $("error").classList.remove("show");
}

function status(text) { $("status").textContent = text; }

async function api(path, body) {
  const init = body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const r = await fetch(path, init);
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || `${path}: HTTP ${r.status}`);
  clearError();
  return data;
}

// seat seen from seat me at a table of n: "partner", "opponent"...
function relName(seat, me, n) { return S.meta.relative_names[n][(seat - me + n) % n]; }

function seatName(seat, me, n) {
  return `${relName(seat, me, n || 4)} (seat ${seat})`;
}

// the default names of a record's seats in the replay view
function seatLabels(n) {
  return range(n).map((s) => n === 2 ? `player ${s}` : `seat ${s} (team ${s % 2})`);
}

// how a seat is called: names[seat] when given (a replay: "seat 2 (team 0)", the agents
// of a tournament pair), else its place seen from seat me ("partner (seat 2)")
function namer(me, names, n) {
  return names ? (s) => names[s] : (s) => seatName(s, me, n);
}

// a table stack of belote for two players: its face-up card over a face-down one
function stackSVG(st, legalCards, onCard) {
  const box = el("div", {class: "stack" + (st.down ? " covered" : "")});
  if (st.down) box.append(cardSVG(null));
  if (st.up) {
    const legal = onCard && legalCards[st.up] !== undefined;
    const c = cardSVG(st.up, legal ? {actionId: legalCards[st.up], onClick: onCard} : {dim: !!onCard});
    c.classList.add("up");
    box.append(c);
  }
  return box;
}

// ------------------------------------------------------------------ the table
// v: a view (seat_view or table_view); me: the seat at the bottom; hands[s]: cards or null
function renderTable(box, v, me, hands, opts = {}) {
  box.replaceChildren();
  const n = v.n_players;
  box.classList.toggle("two", n === 2);
  const name = namer(me, opts.names, n);
  const legalCards = {};
  for (const a of (opts.legal || [])) if (S.cards[a.text]) legalCards[a.text] = a.id;
  for (let s = 0; s < n; s++) {
    const pos = POSITIONS[n][(s - me + n) % n];
    const hand = el("div", {class: "hand", id: `hand-${pos}`});
    if (hands[s]) {
      for (const c of hands[s]) {
        const legal = opts.onCard && legalCards[c] !== undefined;
        hand.append(cardSVG(c, legal ? {actionId: legalCards[c], onClick: opts.onCard}
                                     : {dim: !!opts.onCard && s === me && v.to_act === me}));
      }
    } else {
      const known = (v.known && v.known[s]) || [];       // the cards of that hand one knows
      for (const c of known) hand.append(cardSVG(c, {dim: false}));
      for (let k = known.length; k < v.hand_sizes[s]; k++) hand.append(cardSVG(null));
    }
    const parts = [hand];
    if (v.table) {
      const stacks = el("div", {class: "stacks", id: `stacks-${pos}`});
      for (const st of v.table[s]) stacks.append(stackSVG(st, legalCards, s === me && opts.onCard ? opts.onCard : null));
      parts.push(stacks);
    }
    const label = name(s) + (v.dealer === s ? " · dealer" : "");
    const nameBox = el("div", {class: "name" + (v.to_act === s ? " to-act" : ""), text: label});
    if (pos === "bottom") parts.reverse().push(nameBox); else parts.unshift(nameBox);
    box.append(el("div", {class: `seat s-${pos}`, id: `seat-${s}`}, ...parts));
  }
  const trick = el("div", {class: "trick", id: "trick"});
  for (const p of v.tricks.current) {
    const slot = el("div", {class: `slot p-${POSITIONS[n][(p.seat - me + n) % n]}` +
                                   (v.tricks.winning === p.seat ? " winning" : "")});
    slot.append(cardSVG(p.card));
    trick.append(slot);
  }
  box.append(trick);
  if (v.tricks.last) {
    const last = el("div", {class: "last-trick", id: "last-trick"},
                    el("div", {text: `last trick (${v.tricks.last.number}): ${name(v.tricks.last.winner)}`}));
    const row = el("div");
    for (const p of v.tricks.last.cards) row.append(cardSVG(p.card));
    last.append(row);
    box.append(last);
  }
  const c = v.contract ? `${n === 2 ? "trump" : "contract"} ${v.contract.label}` :
    (v.highest_bid ? `bid ${v.highest_bid.text} by seat ${v.highest_bid.seat}` : (v.phase === "auction" ? "auction" : ""));
  box.append(el("div", {class: "contract-badge", id: "contract"}, c,
                v.retourne ? el("div", {}, "retourne ", cardSVG(v.retourne)) : null));
}

function infoPanel(v, me, names) {
  const grid = el("div", {class: "info-grid"});
  const row = (k, val) => grid.append(el("span", {text: k}), el("span", {}, val));
  const n = v.n_players;
  const name = names ? (s) => names[s] : (s) => relName(s, me, n);
  const side = (k) => names && n === 2 ? names[k] : `${v.side_word} ${k}`;
  row("rules", v.rules);
  row("dealer", namer(me, names, n)(v.dealer));
  const auction = v.auction.map((a) => `${name(a.seat)} ${a.action}`).join(", ");
  row(v.bidding_word, auction || "(nothing said yet)");
  if (v.retourne && n === 2) row("retourne", v.retourne);
  if (v.contract) row(n === 2 ? "trump" : "contract", v.contract.label);
  row("tricks", el("span", {id: "tricks-won"},
                   el("span", {class: "team-0", text: `${side(0)}: ${v.tricks_won[0]} (${v.points_won[0]} pts)`}), "  ",
                   el("span", {class: "team-1", text: `${side(1)}: ${v.tricks_won[1]} (${v.points_won[1]} pts)`})));
  if (v.belotes.length) row("belote", v.belotes.map((b) => `${name(b.seat)} (${b.suit})`).join(", "));
  if (v.declarations && v.declarations.points) {
    row("declarations", v.declarations.points.map((p, s) => `${name(s)} ${p}`).join(", ") +
        (v.declarations.winner === null ? "" : `; scoring: ${name(v.declarations.winner)}`));
  } else if (v.declarations) {
    const shown = v.declarations.shown.map((cs, s) => cs.length ? `${name(s)}: ${cs.join(" ")}` : null).filter((x) => x);
    row("declarations", (v.declarations.winner === null ? "nobody scores" : `team ${v.declarations.winner} scores`) +
        (shown.length ? ` (${shown.join("; ")})` : ""));
  }
  if (v.match) {
    const m = v.match;
    row("score", el("span", {id: "match-score"}, `${side(0)}: ${m.scores[0]}, ${side(1)}: ${m.scores[1]}` +
        (m.mode === "match" ? ` (to ${m.target})` : m.mode === "deals" ? ` after ${m.deals_played} of ${m.deals} deals` : "")));
  }
  return grid;
}

function resultTable(res, v) {
  if (res.void) return el("div", {class: "result", id: "result", text: "void deal: nobody took, no points"});
  const t = el("table");
  t.append(el("tr", {}, el("th", {text: ""}), ...[0, 1].map((k) => el("th", {text: `${v.side_word} ${k}`}))));
  for (const [label, key] of res.rows)
    t.append(el("tr", {}, el("th", {text: label}), el("td", {text: res.teams[0][key]}), el("td", {text: res.teams[1][key]})));
  return el("div", {class: "result", id: "result"},
            el("div", {text: `${res.contract.label}: ${res.outcome}` + (res.multiplier > 1 ? ` (x${res.multiplier})` : "") +
                             (res.capot !== null && res.capot !== undefined ? `, capot by ${v.side_word} ${res.capot}` : "")}), t);
}

// ------------------------------------------------------------------ play
function connect() {
  return new Promise((resolve, reject) => {
    if (S.ws && S.ws.readyState === WebSocket.OPEN) return resolve(S.ws);
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
    ws.onopen = () => { S.ws = ws; resolve(ws); };
    ws.onerror = () => reject(new Error("cannot connect to the game socket"));
    ws.onclose = () => { if (S.ws === ws) { S.ws = null; status("game connection closed"); } };
    ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  });
}

function send(msg) { S.ws.send(JSON.stringify(msg)); }

function onMessage(m) {
  if (m.type === "error") { showError(m.message); return; }
  if (m.type === "state") {
    clearError();
    S.play = m.view;
    renderPlay();
    if (m.view.result) refreshLibrary().catch(() => {});   // the record was just saved
    return;
  }
  if (m.type === "record") {
    if (S.pending === "download") {
      const blob = new Blob([JSON.stringify(m.record, null, 1)], {type: "application/json"});
      const a = el("a", {href: URL.createObjectURL(blob), download: m.name || "record.json"});
      document.body.append(a); a.click(); a.remove();
    } else if (S.pending === "replay") {
      selectTab("replay");
      const agents = S.play ? S.play.agents : null;
      loadRecord(m.record, {title: `your game (${m.name})`,
                            names: agents && agents.map((spec, s) => `${spec === null ? "you" : spec} (seat ${s})`)});
    }
    S.pending = null;
  }
}

function renderPlay() {
  const v = S.play;
  const me = v.seat;
  const n = v.n_players;
  const names = v.agents.map((spec, s) => s === me ? `you (seat ${s})` : `${relName(s, me, n)}: ${spec}`);
  const hands = range(n).map(() => null);
  hands[me] = v.hand;
  const mine = v.waiting === "you";
  renderTable($("play-table"), v, me, hands, {legal: mine ? v.legal : [], names,
                                              onCard: mine ? (id) => send({type: "act", action: id}) : null});
  $("play-info").replaceChildren(infoPanel(v, me),
      el("div", {id: "waiting", "data-waiting": v.waiting,
                 text: {you: "your turn", bots: "the bots are playing...", next: "deal over", over: "game over"}[v.waiting]}));
  const actions = $("play-actions");
  actions.replaceChildren();
  if (mine) {
    for (const a of v.legal) {
      if (S.cards[a.text]) continue;            // cards are clicked in the hand
      actions.append(el("button", {"data-action": a.id, class: "action",
                                   onclick: () => send({type: "act", action: a.id})}, a.text));
    }
  }
  const end = $("play-end");
  end.replaceChildren();
  if (v.result) {
    end.append(resultTable(v.result, v));
    if (v.waiting === "next") end.append(el("button", {id: "next-deal", onclick: () => send({type: "next"})}, "Next deal"));
    end.append(el("button", {id: "download", onclick: () => { S.pending = "download"; send({type: "record"}); }}, "Download record"),
               el("button", {id: "open-replay", onclick: () => { S.pending = "replay"; send({type: "record"}); }}, "Open in replay"));
  }
  if (v.last_event) {
    const log = $("play-log");
    log.append(el("div", {text: `${seatName(v.last_event.seat, me, n)}: ${v.last_event.action}`}));
    log.scrollTop = log.scrollHeight;
  }
}

async function startGame(ev) {
  ev.preventDefault();
  try {
    await connect();
  } catch (e) { showError(e.message); return; }
  const mode = $("setup-mode").value;
  const msg = {type: "new", seat: +$("setup-seat").value, rules: $("setup-rules").value,
               seed: +$("setup-seed").value, pace: +$("setup-pace").value};
  if (playersOf($("setup-rules").value) === 2) msg.opponents = [$("setup-right").value];
  else Object.assign(msg, {partner: $("setup-partner").value, opponents: [$("setup-right").value, $("setup-left").value]});
  if (mode === "match") msg.match = true; else msg.deals = +mode;
  $("play-log").replaceChildren();
  send(msg);
}

// ------------------------------------------------------------------ replay
async function loadRecord(record, opts = {}) {
  try {
    const r = await api("/api/replay", {record});
    S.replay = {record, deals: r.deals, kind: r.kind, deal: opts.deal || 0, step: 0, position: null,
                title: opts.title || `${r.kind} record, rules ${r.rules}`,
                n: r.n_players, names: opts.names || seatLabels(r.n_players)};
    setReplaySeats(r.n_players);
    $("replay-title").textContent = S.replay.title;
    const sel = $("replay-deal");
    sel.replaceChildren(...r.deals.map((d, i) => el("option", {value: i, text: `${i + 1}: ${d.contract || "void"}`})));
    sel.value = S.replay.deal;
    $("replay-deal-label").style.display = r.deals.length > 1 ? "" : "none";
    const d = r.deals[S.replay.deal];
    await goto(opts.step !== undefined ? opts.step : d.play_starts);
  } catch (e) { showError(e.message); }
}

async function goto(step) {
  const R = S.replay;
  if (!R) return;
  const n = R.deals[R.deal].moves.length;
  step = Math.max(0, Math.min(n, step));
  const t0 = performance.now();
  try {
    // every hand is asked for (the record holds them all), those not chosen are hidden
    const p = await api("/api/position", {record: R.record, deal: R.deal, step, show: "all"});
    R.step = step;
    R.position = p;
    const mode = $("replay-show").value;
    const seats = mode === "all" ? range(R.n) : mode === "actor" ? [p.to_act !== null ? p.to_act : 0] : [+mode];
    const hands = p.hands.map((h, s) => seats.includes(s) ? h : null);
    renderTable($("replay-table"), p, 0, hands, {names: R.names});
    $("replay-info").replaceChildren(infoPanel(p, 0, R.names), p.result ? resultTable(p.result, p) : "");
    $("step-label").textContent = `step ${step} / ${n}`;
    $("step-label").setAttribute("data-step", step);
    renderMoves();
    $("analysis").replaceChildren();
    status(`position in ${Math.round(performance.now() - t0)} ms`);
    history.replaceState(null, "", location.pathname);
    $("share-url").value = "";
  } catch (e) { showError(e.message); }
}

function renderMoves() {
  const R = S.replay;
  const d = R.deals[R.deal];
  const box = $("moves");
  box.replaceChildren();
  const start = el("span", {class: "mv" + (R.step === 0 ? " current" : ""), text: "start", onclick: () => goto(0)});
  const word = (R.position && R.position.bidding_word) || "auction";
  let row = el("div", {class: "trick-row"}, el("b", {text: `${word}: `}), start);
  box.append(row);
  let cards = 0;
  d.moves.forEach((m, i) => {
    if (i === d.play_starts) { row = el("div", {class: "trick-row"}, el("b", {text: "trick 1: "})); box.append(row); }
    row.append(el("span", {class: "mv" + (R.step === m.step ? " current" : ""), "data-step": m.step,
                           title: `seat ${m.seat}`, text: `${m.seat}:${m.action}`, onclick: () => goto(m.step)}));
    if (i >= d.play_starts && S.cards[m.action] && ++cards % R.n === 0 && cards < 32) {
      row = el("div", {class: "trick-row"}, el("b", {text: `trick ${cards / R.n + 1}: `}));
      box.append(row);
    }
  });
}

function fmt(v, digits = 1) {
  if (v === null || v === undefined) return "";
  return typeof v === "number" && !Number.isInteger(v) ? v.toFixed(digits) : String(v);
}

// the analysis' columns: [row key, header, css class, digits]; a column shows when a row
// has its value
function analysisColumns(a) {
  const ev = a.evaluation;
  const mc = ev ? `hand evaluation (${ev.samples} worlds, ${ev.method})` : "";
  return [["dd", "double dummy (score)", "dd", 1], ["dd_points", "double dummy (card points)", "dd-points", 1],
          ["pimc", `PIMC (${a.worlds} worlds${a.pimc_unit ? ", " + a.pimc_unit : ""})`, "pimc", 1],
          ["nn", "nn", "nn", 1], ["ev", "nn ev", "nn-ev", 1], ["p_made", "nn P(made)", "nn-p", 2],
          ["mc_ev", `${mc}: expected score`, "mc-ev", 1], ["mc_p_made", `${mc}: P(made)`, "mc-p", 2]]
    .filter(([key]) => a.rows.some((r) => r[key] !== null && r[key] !== undefined));
}

async function analyse() {
  const R = S.replay;
  if (!R) return;
  const box = $("analysis");
  box.replaceChildren(el("div", {text: "searching..."}));
  const t0 = performance.now();
  try {
    const a = await api("/api/analyse", {record: R.record, deal: R.deal, step: R.step, worlds: +$("worlds").value});
    const ms = Math.round(performance.now() - t0);
    const cols = analysisColumns(a);
    const head = ["action"].concat(cols.map(([key, h]) => h + (key === a.sorted_by ? " \u25bc" : ""))).concat(["chosen by", ""]);
    const t = el("table", {id: "analysis-table"});
    t.append(el("tr", {}, ...head.map((h) => el("th", {text: h}))));
    const best = Math.max(...a.rows.map((r) => r.dd === null ? -Infinity : r.dd));
    for (const r of a.rows) {
      const cells = [el("td", {class: "act", text: r.action.text})];
      for (const [key, , cls, digits] of cols) cells.push(el("td", {class: cls, text: fmt(r[key], digits)}));
      cells.push(el("td", {text: r.chosen_by.join(", ")}),
                 el("td", {}, el("button", {class: "branch", "data-action": r.action.id,
                                            onclick: () => branch(r.action.id)}, "branch")));
      t.append(el("tr", {class: "row" + (r.dd !== null && r.dd === best ? " best-dd" : ""), "data-action": r.action.text}, ...cells));
    }
    const sorted = a.sorted_by ? `; sorted by ${cols.find(([key]) => key === a.sorted_by)[1]}, best first` : "";
    box.replaceChildren(el("div", {id: "analysis-head", text: `${R.names[a.seat]} to act; values for its side; ` +
                                          `searched in ${ms} ms${sorted}` + (a.notes.length ? `; ${a.notes.join("; ")}` : "")}), t);
    box.scrollIntoView({block: "start"});       // the result in view, not below the fold
    status(`analysis in ${ms} ms`);
  } catch (e) { box.replaceChildren(); showError(e.message); }
}

async function branch(actionId) {
  const R = S.replay;
  const agents = range(R.n).map((s) => $(`branch-${s}`).value);
  try {
    status("the bots play on...");
    const r = await api("/api/branch", {record: R.record, deal: R.deal, step: R.step, action: actionId, agents});
    await loadRecord(r.record, {step: R.step + 1, title: `branch at step ${R.step} of ${R.title}`,
                                names: agents.map((spec, s) => `${spec} (seat ${s})`)});
  } catch (e) { showError(e.message); }
}

// the record in the address: deflate-raw, then base64url
async function packRecord(record) {
  const bytes = new TextEncoder().encode(JSON.stringify(record));
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const packed = new Uint8Array(await new Response(stream).arrayBuffer());
  let bin = "";
  for (const b of packed) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function unpackRecord(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - b64.length % 4) % 4));
  const bytes = Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return JSON.parse(await new Response(stream).text());
}

async function share() {
  const R = S.replay;
  if (!R) return;
  const hash = `#r=${await packRecord(R.record)}&d=${R.deal}&s=${R.step}&h=${$("replay-show").value}`;
  history.replaceState(null, "", location.pathname + hash);
  $("share-url").value = location.href;
  $("share-url").select();
  status("the address of this position is in the box (and the address bar)");
}

async function openFromAddress() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.has("r") && !params.has("lib")) return false;
  selectTab("replay");
  if (params.has("h")) $("replay-show").value = params.get("h");
  try {
    const record = params.has("r") ? await unpackRecord(params.get("r"))
                                   : await api(`/api/records/${encodeURIComponent(params.get("lib"))}`);
    await loadRecord(record, {deal: +(params.get("d") || 0), step: params.has("s") ? +params.get("s") : undefined,
                              title: params.has("lib") ? params.get("lib") : "shared position"});
  } catch (e) { showError(`cannot open the address's record: ${e.message}`); }
  return true;
}

// ------------------------------------------------------------------ library, tournaments
async function refreshLibrary() {
  const lib = await api("/api/library");
  $("library-records").replaceChildren(el("option", {value: "", text: lib.records.length ? "(records folder)" : "(no saved records)"}),
    ...lib.records.map((r) => el("option", {value: r.name, text: `${r.name} (${r.kind})`})));
  $("results-files").replaceChildren(...lib.results.map((r) => el("option", {value: r.name, text: r.name})));
  return lib;
}

async function openResults() {
  const name = $("results-files").value;
  if (!name) { showError("no results file: serve --results FILE, or put .jsonl files in the records folder"); return; }
  const box = $("results");
  box.replaceChildren(el("div", {text: "reading..."}));
  try {
    const r = await api(`/api/results/${encodeURIComponent(name)}`);
    box.replaceChildren();
    for (const t of r.tables) {
      const table = el("table", {class: "results-table"});
      table.append(el("tr", {}, ...t.headers.map((h) => el("th", {text: h}))));
      for (const row of t.rows) table.append(el("tr", {}, ...row.map((c) => el("td", {text: c}))));
      box.append(el("h3", {text: t.title}), table);
    }
    for (const w of r.warnings) box.append(el("div", {class: "hint", text: w}));
    const pairs = el("table", {id: "pairs"});
    pairs.append(el("tr", {}, ...["pair", "team X", "team Y", "X - Y", "scores (X, Y)", "replay"].map((h) => el("th", {text: h}))));
    for (const p of r.pairs.slice(0, 500)) {
      const open = (k) => el("button", {class: "open-pair", "data-seating": k,
                                        onclick: () => openPair(name, p, k)}, `seating ${k + 1}`);
      pairs.append(el("tr", {}, el("td", {text: p.i}), el("td", {text: p.x}), el("td", {text: p.y}),
                      el("td", {text: fmt(p.margin)}), el("td", {text: JSON.stringify(p.scores)}),
                      el("td", {}, open(0), open(1))));
    }
    box.append(el("h3", {text: `deal pairs (${r.pairs.length})`}), pairs);
  } catch (e) { box.replaceChildren(); showError(e.message); }
}

async function openPair(name, p, k) {
  try {
    status("playing the pair again...");
    const r = await api(`/api/results/${encodeURIComponent(name)}/${encodeURIComponent(p.run)}/${p.i}`);
    const seats = r.seatings[k].map((s, i) => `${i}: ${s}`).join(", ");
    selectTab("replay");
    await loadRecord(r.records[k], {title: `${name}, pair ${p.i}, seating ${k + 1} (${seats})` +
                                          (r.same ? "" : " - differs from the stored scores"),
                                    names: r.seatings[k].map((spec, s) => `${spec} (seat ${s})`)});
  } catch (e) { showError(e.message); }
}

// ------------------------------------------------------------------ set-up
// the players of a rules text ("ffb:target=500", "belote_a_deux"): its preset's family's
function playersOf(rules) {
  const f = S.meta.families[rules.split(":")[0].trim()];
  return f ? f.n_players : 4;
}

// the play form for the rules typed: seats, partner and the opponents' names, agents
function setupForRules() {
  const rules = $("setup-rules").value;
  const n = playersOf(rules);
  const seat = $("setup-seat");
  const keep = Math.min(+seat.value || 0, n - 1);
  seat.replaceChildren(...range(n).map((s) => el("option", {value: s, text: s})));
  seat.value = keep;
  for (const id of ["setup-partner-label", "setup-left-label"]) $(id).style.display = n === 2 ? "none" : "";
  $("setup-right-name").textContent = n === 2 ? "opponent" : "right";
  const f = S.meta.families[rules.split(":")[0].trim()];
  const agents = S.meta.agents_by_family[f ? f.family : "coinche"] || S.meta.agents;
  $("agent-specs").replaceChildren(...agents.concat([`pimc:worlds=${S.meta.worlds}`]).map((a) => el("option", {value: a})));
}

// the replay's seat choices (hands shown, branch bots) for a table of n
function setReplaySeats(n) {
  const show = $("replay-show");
  const keep = show.value;
  show.replaceChildren(el("option", {value: "all", text: "all shown"}), el("option", {value: "actor", text: "seat to act only"}),
                       ...range(n).map((s) => el("option", {value: s, text: `${n === 2 ? "player" : "seat"} ${s} only`})));
  show.value = [...show.options].some((o) => o.value === keep) ? keep : "all";
  for (let s = 0; s < 4; s++) $(`branch-${s}`).style.display = s < n ? "" : "none";
  $("branch-label").textContent = n === 2 ? "branch: bots for players 0-1" : "branch: bots for seats 0-3";
}

function selectTab(name) {
  for (const b of document.querySelectorAll("button.tab")) b.classList.toggle("active", b.dataset.tab === name);
  if (name !== "play" && S.meta) refreshLibrary().catch(() => {});
  for (const v of document.querySelectorAll(".view")) v.classList.toggle("active", v.id === `view-${name}`);
}

async function init() {
  S.meta = await api("/api/meta");
  for (const c of S.meta.cards) S.cards[c.text] = c;
  $("setup-rules").value = S.meta.rules;
  $("presets").replaceChildren(...S.meta.presets.map((p) => el("option", {value: p})));
  setupForRules();
  $("setup-rules").addEventListener("input", setupForRules);
  $("worlds").value = S.meta.worlds;
  for (const b of document.querySelectorAll("button.tab")) b.addEventListener("click", () => selectTab(b.dataset.tab));
  $("setup").addEventListener("submit", startGame);
  $("first").addEventListener("click", () => goto(0));
  $("prev").addEventListener("click", () => S.replay && goto(S.replay.step - 1));
  $("next").addEventListener("click", () => S.replay && goto(S.replay.step + 1));
  $("last").addEventListener("click", () => S.replay && goto(1e9));
  $("replay-show").addEventListener("change", () => S.replay && goto(S.replay.step));
  $("replay-deal").addEventListener("change", () => {
    S.replay.deal = +$("replay-deal").value;
    goto(S.replay.deals[S.replay.deal].play_starts);
  });
  $("analyse").addEventListener("click", analyse);
  $("share").addEventListener("click", share);
  $("upload").addEventListener("change", async () => {
    const f = $("upload").files[0];
    if (!f) return;
    let record;
    try { record = JSON.parse(await f.text()); } catch (e) { showError(`${f.name}: not JSON: ${e.message}`); return; }
    loadRecord(record, {title: f.name});
  });
  $("library-open").addEventListener("click", async () => {
    const name = $("library-records").value;
    if (!name) { await refreshLibrary(); return; }
    try { loadRecord(await api(`/api/records/${encodeURIComponent(name)}`), {title: name}); } catch (e) { showError(e.message); }
  });
  $("results-open").addEventListener("click", openResults);
  document.addEventListener("keydown", (e) => {
    if (!$("view-replay").classList.contains("active") || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") $("next").click();
    if (e.key === "ArrowLeft") $("prev").click();
  });
  await refreshLibrary();
  if (!await openFromAddress()) selectTab("play");
  document.body.setAttribute("data-ready", "1");
}

init().catch((e) => showError(`the page could not start: ${e.message}`));
