// The analysis board: the game is kept here (who moves, who took which box, the moves to
// undo); every position is valued by the server's /api/analyse and its Nimstring value found by
// its /api/nimstring, a game reviewed by its /api/review, and a position converted to text (with
// its long chains) by its /api/position. Lines are numbered in dab's external order: the horizontals row by row, then
// the verticals row by row.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const S = {
  rows: 3, cols: 3,
  drawn: [],        // 1 where a line is drawn
  start: [],        // the lines drawn when this game started
  history: [],      // {line, player, boxes}
  future: [],       // moves undone, the next to redo last
  toMove: 0,        // 0: A, 1: B
  answer: null,     // the last answer, for the position it names (answer.root)
  seq: 0,           // the newest request; older answers are dropped
  abort: null,      // what cancels the analysis under way
  dab: "none",      // which player dab plays
  review: null,     // {game: the lines reviewed from S.start, moves: the review's moves}
  position: null,   // /api/position's answer for the position it names (position.lines)
  nim: null,        // {root, answer} or {root, message}: /api/nimstring's for the position root
  nimAbort: null,   // what cancels the Nimstring valuing under way
};

const lineCount = () => S.rows * (S.cols + 1) + (S.rows + 1) * S.cols;
const horizontals = () => (S.rows + 1) * S.cols;
const h = (r, c) => r * S.cols + c;
const v = (r, c) => horizontals() + r * (S.cols + 1) + c;

function coord(i) {
  if (i < horizontals()) return { horizontal: true, r: Math.floor(i / S.cols), c: i % S.cols };
  const j = i - horizontals();
  return { horizontal: false, r: Math.floor(j / (S.cols + 1)), c: j % (S.cols + 1) };
}

function lineName(i) {
  const k = coord(i);
  return `${k.horizontal ? "h" : "v"}(${k.r},${k.c})`;
}

const boxSides = (b) => {
  const r = Math.floor(b / S.cols), c = b % S.cols;
  return [h(r, c), h(r + 1, c), v(r, c), v(r, c + 1)];
};

function lineBoxes(i) {
  const k = coord(i), out = [];
  if (k.horizontal) {
    if (k.r > 0) out.push((k.r - 1) * S.cols + k.c);
    if (k.r < S.rows) out.push(k.r * S.cols + k.c);
  } else {
    if (k.c > 0) out.push(k.r * S.cols + k.c - 1);
    if (k.c < S.cols) out.push(k.r * S.cols + k.c);
  }
  return out;
}

const complete = (drawn, b) => boxSides(b).every((s) => drawn[s]);
const lineString = () => S.drawn.map((d) => (d ? "1" : "0")).join("");
// The answer of the position on the board, or null while it is not known.
const current = () => (S.answer && S.answer.root === lineString() ? S.answer : null);
const boardName = () => `${S.rows}x${S.cols}`;
// An answer of one move (the opening book's, or the rules'), not every move's value.
const oneMove = (a) => Boolean(a) && !Array.isArray(a.moves);
const undrawnCount = () => S.drawn.filter((d) => !d).length;

function playerName(p) {
  if (S.dab === "none") return p === 0 ? "A" : "B";
  return String(p) === S.dab ? "dab" : "you";
}

// Who took each box: "pre" (before this game), 0 or 1, or undefined.
function owners() {
  const own = new Array(S.rows * S.cols).fill(undefined);
  for (let b = 0; b < own.length; b++) if (complete(S.start, b)) own[b] = "pre";
  const drawn = S.start.slice();
  for (const m of S.history) {
    drawn[m.line] = 1;
    // A box is taken by the move that draws its last side: the one that completes it.
    for (const b of lineBoxes(m.line)) if (complete(drawn, b)) own[b] = m.player;
  }
  return own;
}

function newGame(rows, cols, lines) {
  S.rows = rows; S.cols = cols;
  S.drawn = lines ? Array.from(lines, (ch) => (ch === "1" ? 1 : 0)) : new Array(lineCount()).fill(0);
  S.start = S.drawn.slice();
  S.history = [];
  S.future = [];
  S.toMove = 0;
  S.answer = null;
  $("rows").value = rows; $("cols").value = cols;
  update();
}

function play(i) {
  if (S.drawn[i]) return;
  S.future = [];
  draw(i);
  update();
}

// Draws line i for the player to move, who moves again when it completes a box.
function draw(i) {
  S.drawn[i] = 1;
  // Line i was undrawn, so every box it completes now was not complete before.
  const boxes = lineBoxes(i).filter((b) => complete(S.drawn, b)).length;
  S.history.push({ line: i, player: S.toMove, boxes });
  if (boxes === 0) S.toMove ^= 1;
}

function redo() {
  if (!S.future.length) return;
  do {
    draw(S.future.pop());
  } while (S.future.length && String(S.toMove) === S.dab);
  update();
}

// Littlegolem's notation (its forum's, 2004): dots lettered a, b, ... from the left and
// numbered 1, 2, ... from the bottom; a line is its two dots, lower-left first ("a1-b1").
// Past z (boards wider than 25 columns) the letters go on as a spreadsheet's: aa, ab, ..., zz.
const letter = (n) => String.fromCharCode(97 + n);
const column = (c) => (c < 26 ? letter(c) : letter(Math.floor(c / 26) - 1) + letter(c % 26));
const columnOf = (name) =>
  name.length === 1 ? name.charCodeAt(0) - 97 : 26 * (name.charCodeAt(0) - 96) + name.charCodeAt(1) - 97;
const dotName = (r, c) => `${column(c)}${S.rows + 1 - r}`;

function golemName(i) {
  const k = coord(i);
  return k.horizontal ? `${dotName(k.r, k.c)}-${dotName(k.r, k.c + 1)}` : `${dotName(k.r + 1, k.c)}-${dotName(k.r, k.c)}`;
}

// The line between two littlegolem dots ("a1-b1" or "a1b1", either order), or undefined when
// they are not neighbours on this board.
function golemLine(token) {
  const m = /^([a-z]{1,2})(\d+)-?([a-z]{1,2})(\d+)$/.exec(token);
  const dot = (letters, number) => ({ r: S.rows + 1 - Number(number), c: columnOf(letters) });
  const a = dot(m[1], m[2]), b = dot(m[3], m[4]);
  const inside = (d) => d.r >= 0 && d.r <= S.rows && d.c >= 0 && d.c <= S.cols;
  if (!inside(a) || !inside(b)) return undefined;
  if (a.r === b.r && Math.abs(a.c - b.c) === 1) return h(a.r, Math.min(a.c, b.c));
  if (a.c === b.c && Math.abs(a.r - b.r) === 1) return v(Math.min(a.r, b.r), a.c);
  return undefined;
}

// The game as a littlegolem record: turns numbered, a turn's moves (a player who completes a
// box moves again) separated by commas.
function golemRecord() {
  const turns = [];
  let again = false;
  for (const m of S.history) {
    if (!again) turns.push([]);
    turns[turns.length - 1].push(golemName(m.line));
    again = m.boxes > 0;
  }
  return turns.map((t, n) => `${n + 1}. ${t.join(", ")}`).join(" ");
}

// Plays a list of moves from the position shown, in dab's notation (as the moves box shows
// them) or littlegolem's (its move numbers skipped); the first that is no undrawn line stops
// it, named.
function playMoves() {
  // A dab name holds a comma itself: names are matched whole, anything else is a token to refuse.
  const names = ($("moves-in").value.match(/[hv]\s*\(\s*\d+\s*,\s*\d+\s*\)|[^\s,;]+/gi) || [])
    .map((n) => n.replace(/\s+/g, "").toLowerCase().replace(/^\d+\./, ""))
    .filter((n) => n !== "");
  const index = new Map(Array.from({ length: lineCount() }, (_, i) => [lineName(i), i]));
  for (const n of names) {
    const i = /^[a-z]{1,2}\d+-?[a-z]{1,2}\d+$/.test(n) ? golemLine(n) : index.get(n);
    if (i === undefined || S.drawn[i]) {
      // Beside the box, where the analysis's own messages do not overwrite it.
      $("moves-message").textContent =
        `move '${n}' is ${i === undefined ? "no line of this board" : "drawn already"}; the moves before it were played`;
      update();
      return;
    }
    S.future = [];
    draw(i);
  }
  $("moves-message").textContent = "";
  update();
}

function undo() {
  if (!S.history.length) return;
  do {
    const m = S.history.pop();
    S.drawn[m.line] = 0;
    S.toMove = m.player;
    S.future.push(m.line);
  } while (S.history.length && String(S.toMove) === S.dab);
  update();
}

function update() {
  const url = new URL(window.location.href);
  url.searchParams.set("board", boardName());
  url.searchParams.set("lines", lineString());
  window.history.replaceState(null, "", url);
  $("lines-out").value = lineString();
  $("moves-out").value = S.history.map((m) => lineName(m.line)).join(" ");
  $("golem-out").value = golemRecord();
  render();
  describe();
  analyse();
  positionText();
  nimstringValue();
}

// --- drawing -------------------------------------------------------------------------

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, val] of Object.entries(attrs)) e.setAttribute(k, val);
  if (parent) parent.appendChild(e);
  return e;
}

// The colour of a move that loses `lost` boxes against the best (its value that much below the
// position's), the same on every board whatever the spread of the values: green for a best
// move, then olive, orange, and red from 4 boxes lost.
const LOST_SHADES = [0, 1, 2, 3, 4];
const lostHue = (lost) => (lost <= 0 ? 125 : Math.max(0, 80 - 20 * lost));
const lostColour = (lost) => `hsl(${lostHue(lost)}, 70%, 36%)`;

function render() {
  const svg = $("board");
  const cell = Math.max(30, Math.min(90, Math.floor(640 / Math.max(S.rows, S.cols))));
  const pad = Math.max(22, cell * 0.4);
  const width = S.cols * cell + 2 * pad, height = S.rows * cell + 2 * pad;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.replaceChildren();
  const font = Math.max(11, Math.min(20, cell * 0.3));
  // The dots as littlegolem names them, left and below (letters from the left, numbers from
  // the bottom: a record reads against the board); dab's rows and columns, right and above
  // (h(r,c) runs from dot (r,c) right, v(r,c) from it down).
  for (let c = 0; c <= S.cols; c++) {
    el("text", { class: "coord golem", x: pad + c * cell, y: height - pad * 0.4 }, svg).textContent = column(c);
  }
  for (let r = 0; r <= S.rows; r++) {
    el("text", { class: "coord golem", x: pad * 0.4, y: pad + r * cell }, svg).textContent = S.rows + 1 - r;
  }
  for (let c = 0; c <= S.cols; c++) {
    el("text", { class: "coord dab", x: pad + c * cell, y: pad * 0.4 }, svg).textContent = c;
  }
  for (let r = 0; r <= S.rows; r++) {
    el("text", { class: "coord dab", x: width - pad * 0.4, y: pad + r * cell }, svg).textContent = r;
  }
  const own = owners();
  for (let b = 0; b < own.length; b++) {
    if (own[b] === undefined) continue;
    const r = Math.floor(b / S.cols), c = b % S.cols;
    el("rect", { class: `box-${own[b]}`, x: pad + c * cell, y: pad + r * cell, width: cell, height: cell }, svg);
    if (own[b] !== "pre") {
      const t = el("text", { class: "box-label", x: pad + (c + 0.5) * cell, y: pad + (r + 0.5) * cell }, svg);
      t.textContent = playerName(own[b]);
    }
  }
  const shown = current();
  const values = new Map();
  const loony = new Set();
  // One move without every move's value (the opening book's or the rules'): no numbers to show.
  const byRules = oneMove(shown);
  if (shown && !byRules) for (const m of shown.moves) { values.set(m.index, m.value); if (m.loony) loony.add(m.index); }
  const last = S.history.length ? S.history[S.history.length - 1].line : -1;
  const labels = [];
  for (let i = 0; i < lineCount(); i++) {
    const k = coord(i);
    const x1 = pad + k.c * cell, y1 = pad + k.r * cell;
    const x2 = k.horizontal ? x1 + cell : x1, y2 = k.horizontal ? y1 : y1 + cell;
    const value = values.get(i);
    const best = shown && (byRules ? shown.index === i : value === shown.value);
    const line = el("line", { x1, y1, x2, y2, "data-line": i }, svg);
    if (S.drawn[i]) {
      line.setAttribute("class", i === last ? "drawn last" : "drawn");
      continue;
    }
    line.setAttribute("class", (best ? "undrawn best" : "undrawn") + (loony.has(i) ? " loony" : ""));
    if (best) line.style.stroke = lostColour(0);
    // A box this line completes (its last side): a square beside the line, inside the box.
    const completes = lineBoxes(i).filter((b) => boxSides(b).filter((s) => !S.drawn[s]).length === 1);
    for (const b of completes) {
      const cx = pad + ((b % S.cols) + 0.5) * cell, cy = pad + (Math.floor(b / S.cols) + 0.5) * cell;
      const mx = (x1 + x2) / 2, my = (y1 + y2) / 2, side = cell * 0.14;
      const at = { x: mx + (cx - mx) * 0.5 - side / 2, y: my + (cy - my) * 0.5 - side / 2 };
      el("rect", { class: "completes", "data-line": i, ...at, width: side, height: side }, svg);
    }
    const hw = cell * 0.2;
    const hit = k.horizontal
      ? { x: x1 + cell * 0.12, y: y1 - hw, width: cell * 0.76, height: 2 * hw }
      : { x: x1 - hw, y: y1 + cell * 0.12, width: 2 * hw, height: cell * 0.76 };
    const area = el("rect", { class: "hit", "data-line": i, ...hit }, svg);
    const title = el("title", {}, area);
    title.textContent = `${lineName(i)}, ${golemName(i)}` + (value !== undefined ? `: ${signed(value)}` : "") +
      (loony.has(i) ? " (loony: offers boxes)" : "") + (completes.length ? ` (completes ${completes.length === 1 ? "a box" : "2 boxes"})` : "");
    area.addEventListener("click", () => {
      if (String(S.toMove) === S.dab) return;
      play(i);
    });
    if (value !== undefined && $("show-values").checked) {
      labels.push({ i, value, best, x: (x1 + x2) / 2, y: (y1 + y2) / 2 });
    }
  }
  reviewMarks(svg, cell, pad, font);
  for (let r = 0; r <= S.rows; r++) {
    for (let c = 0; c <= S.cols; c++) {
      el("circle", { class: "dot", cx: pad + c * cell, cy: pad + r * cell, r: Math.max(3, cell * 0.06) }, svg);
    }
  }
  for (const l of labels) {
    const lost = shown.value - l.value;
    const t = el("text", {
      class: l.best ? "value best" : "value", x: l.x, y: l.y, "data-line": l.i, "data-lost": lost, "font-size": font,
      fill: lostColour(lost),
    }, svg);
    t.textContent = signed(l.value);
  }
}

const duration = (s) => (s < 1 ? `${(s * 1000).toFixed(s < 0.01 ? 2 : 0)} ms` : `${s.toFixed(2)} s`);

const signed = (x) => (x > 0 ? `+${x}` : `${x}`);

// --- the panel -----------------------------------------------------------------------

function describe() {
  const own = owners();
  const taken = [0, 0];
  let pre = 0;
  for (const o of own) if (o === "pre") pre++; else if (o !== undefined) taken[o]++;
  const left = own.filter((o) => o === undefined).length;
  const mover = playerName(S.toMove);
  const over = undrawnCount() === 0;
  $("turn").textContent = over ? "game over" : `${mover} to move` + (String(S.toMove) === S.dab ? " (thinking...)" : "");
  let score = `score: ${playerName(0)} ${taken[0]}, ${playerName(1)} ${taken[1]}`;
  if (pre) score += `; ${pre} taken before`;
  if (!over) score += `; ${left} left`;
  $("score").textContent = score;
  const shown = current();
  if (over) {
    const d = taken[0] - taken[1];
    $("verdict").textContent = d === 0 ? "a draw" : `${playerName(d > 0 ? 0 : 1)} wins by ${Math.abs(d)}`;
    $("best").textContent = "";
  } else if (oneMove(shown) && shown.proven) {
    const by = shown.engine === "book" ? "from the opening book" : "by the search";
    $("verdict").textContent = `best ${shown.best.join(", ")} for ${mover} (${by}; proven best)`;
    $("best").textContent = shown.why;
  } else if (oneMove(shown)) {
    const nim = shown.nimstring === null || shown.nimstring === undefined ? "" : `; Nimstring value ${shown.nimstring === "loony" ? "loony" : shown.nimstring === 0 ? "0" : "*" + shown.nimstring}`;
    $("verdict").textContent = `suggested ${shown.best.join(", ")} for ${mover} (by rules: ${shown.rule}; not proven best)${nim}`;
    $("best").textContent = shown.why;
  } else if (shown && shown.penalty) {
    // Under the server's last-move penalty the value is no split of the boxes left.
    $("verdict").textContent =
      `value ${signed(shown.value)} for ${mover}, the player who draws the last line losing ${shown.penalty}`;
    $("best").textContent = bestLine(shown);
  } else if (shown) {
    const other = playerName(1 - S.toMove);
    const end = [taken[0], taken[1]];
    end[S.toMove] += (left + shown.value) / 2;
    end[1 - S.toMove] += (left - shown.value) / 2;
    $("verdict").textContent =
      `value ${signed(shown.value)} for ${mover}: best play ends ${mover} ${end[S.toMove]}, ${other} ${end[1 - S.toMove]}`;
    $("best").textContent = `${bestLine(shown)}${nextLoony(shown, mover, other)}`;
  } else {
    $("verdict").textContent = "";
    $("best").textContent = "";
  }
  showControl();
}

// The best moves in one line: "any move" where every move is best, rather than all of them.
function bestLine(shown) {
  const n = shown.moves.length;
  if (n > 1 && shown.best.length === n) return `best: any move (all ${n} are worth ${signed(shown.value)})`;
  return `best: ${shown.best.join(", ")}`;
}

// At most `most` names, then how many more.
function someOf(names, most) {
  return names.length <= most ? names.join(", ") : `${names.slice(0, most).join(", ")} and ${names.length - most} more`;
}

// Control of the endgame: the Nimstring value and its regions' (where the calculator finished
// within the time limit), and the long chains now on the board with the parity the player to
// move wants (the long chain rule).
function showControl() {
  const mover = playerName(S.toMove), other = playerName(1 - S.toMove);
  const root = lineString();
  const nim = S.nim && S.nim.root === root ? S.nim : null;
  const star = (v) => (v === "loony" ? "loony" : v === 0 ? "0" : `*${v}`);
  let text = "";
  if (undrawnCount() === 0) {
    text = "";
  } else if (!nim) {
    text = "Nimstring: valuing...";
  } else if (nim.message) {
    text = `Nimstring: ${nim.message}`;
  } else {
    const a = nim.answer;
    const sum = a.regions.length > 1 ? `${a.regions.map(star).join(" + ")} = ${star(a.value)}` : `${star(a.value)} (one region)`;
    let who;
    if (a.value === "loony") who = `${mover} has been offered boxes: taking or declining them, ${mover} keeps control`;
    else if (a.wins) who = `${mover} can win control (Nimstring), by ${someOf(a.winning, 6)}`;
    else who = `${mover} cannot win control: every move leaves a Nimstring win to ${other}`;
    text = `Nimstring ${sum}: ${who}`;
  }
  $("nimstring").textContent = text;
  const p = S.position && S.position.lines === root && S.position.board === boardName() ? S.position : null;
  const other_parity = (w) => (w === "odd" ? "even" : "odd");
  $("chains").textContent = p && undrawnCount()
    ? `long chains: ${p.long_chains} now; for control ${mover} wants an ${p.long_chains_wanted} number at the end, ` +
      `${other} an ${other_parity(p.long_chains_wanted)} one (the long chain rule)`
    : "";
}

// Asks the server for the Nimstring value of the position shown, within the time limit; the
// valuing of a position left before its answer is cancelled (the server stops it).
async function nimstringValue() {
  const root = lineString();
  if (S.nimAbort) S.nimAbort.abort();
  S.nimAbort = null;
  if (undrawnCount() === 0 || (S.nim && S.nim.root === root)) {
    showControl();
    return;
  }
  const abort = new AbortController();
  S.nimAbort = abort;
  const seconds = $("seconds").value || "10";
  const query = new URLSearchParams({ board: boardName(), lines: root, seconds });
  let response, body;
  try {
    response = await fetch(`/api/nimstring?${query}`, { signal: abort.signal });
    body = await response.text();
  } catch (e) {
    // Cancelled for another position, or the server is gone (the analysis says so).
    return;
  }
  if (root !== lineString()) return;
  S.nim = response.ok ? { root, answer: JSON.parse(body) } : { root, message: body };
  showControl();
}

/** Who must make the next loony move with best play (Wilson's v / ^), where the answer says. */
function nextLoony(shown, mover, other) {
  const who = { mover, opponent: other, neither: "neither player" }[shown.next_loony];
  return who ? `; next loony move: ${who}` : "";
}

const SOURCES = {
  store: "the store's book",
  endgame: "the endgame theorems (loops and chains)",
  solved: "a solve (retrograde in memory)",
  search: "the search engine",
  book: "dab's opening book (from a complete solve)",
  rules: "rules (no exact answer within the time limit)",
};

function setState(state, message) {
  const status = $("status");
  status.dataset.state = state;
  $("message").textContent = message || "";
}

async function analyse() {
  const seq = ++S.seq;
  const root = lineString();
  if (undrawnCount() === 0) {
    setState("over");
    $("source").textContent = "";
    return;
  }
  $("source").textContent = "";
  const seconds = $("seconds").value || "10";
  const query = new URLSearchParams({ board: boardName(), lines: root, seconds, engine: $("engine").value });
  const asked = performance.now();
  // The analysis asked before this one is no longer waited for: the server stops it.
  if (S.abort) S.abort.abort();
  const abort = new AbortController();
  S.abort = abort;
  const elapsed = () => `analysing... ${((performance.now() - asked) / 1000).toFixed(1)} s of the ${seconds} s limit`;
  setState("busy", elapsed());
  $("cancel").hidden = false;
  const ticker = setInterval(() => {
    if (seq === S.seq && !abort.signal.aborted) $("message").textContent = elapsed();
  }, 100);
  let response, body;
  try {
    response = await fetch(`/api/analyse?${query}`, { signal: abort.signal });
    body = await response.text();
  } catch (e) {
    if (seq === S.seq) {
      setState("error", abort.signal.aborted
        ? "cancelled: the server stops the analysis unless it is asked again within 10 s (Analyse again)"
        : `the server did not answer: ${e}`);
    }
    return;
  } finally {
    clearInterval(ticker);
    if (seq === S.seq) $("cancel").hidden = true;
  }
  if (seq !== S.seq) return;
  if (!response.ok) {
    setState("error", body);
    return;
  }
  const answer = JSON.parse(body);
  const trip = (performance.now() - asked) / 1000;
  S.answer = answer;
  const status = $("status");
  status.dataset.root = answer.root;
  status.dataset.source = answer.source;
  $("source").textContent =
    `answered by ${SOURCES[answer.source] || answer.source} in ${duration(answer.seconds)}` +
    ` (${duration(trip)} with the request)`;
  if (!document.body.dataset.firstAnswerMs) document.body.dataset.firstAnswerMs = performance.now().toFixed(1);
  render();
  describe();
  setState("ready");
  dabMoves(seq);
}

// dab plays a best move when it is its turn (after a pause, so that a person sees it).
function dabMoves(seq) {
  if (S.dab === "none" || String(S.toMove) !== S.dab || !S.answer || !S.answer.best.length) return;
  // Stepping through a reviewed game: its next move is the game's, not dab's.
  if (reviewAt() >= 0 && S.future.length) return;
  const name = S.answer.best[0];
  const move = oneMove(S.answer) ? { index: S.answer.index } : S.answer.moves.find((m) => m.line === name);
  setTimeout(() => {
    if (seq === S.seq && move) play(move.index);
  }, 500);
}

async function positionText() {
  const seq = S.seq;
  const query = new URLSearchParams({ board: boardName(), lines: lineString() });
  try {
    const response = await fetch(`/api/position?${query}`);
    if (response.ok && seq === S.seq) {
      S.position = await response.json();
      $("art-out").value = S.position.art;
      showControl();
    }
  } catch (e) {
    // The analysis says when the server is gone.
  }
}

// Whether `text` is a game's record in littlegolem's notation (two dots a move, move numbers
// skipped), which names moves, not a position.
function isGolemRecord(text) {
  const tokens = text.split(/[\s,;]+/).map((t) => t.toLowerCase().replace(/^\d+\./, "")).filter((t) => t !== "");
  return tokens.length > 0 && tokens.every((t) => /^[a-z]{1,2}\d+-?[a-z]{1,2}\d+$/.test(t));
}

async function load() {
  const text = $("paste").value;
  $("paste-message").textContent = "";
  if (isGolemRecord(text)) {
    // A record is moves, played from the empty board shown: the Moves box's work.
    $("moves-in").value = text.trim();
    $("paste").value = "";
    newGame(S.rows, S.cols);
    playMoves();
    $("paste-message").textContent =
      `read as a littlegolem record (a game's moves, not a position): played from the empty ${boardName()} board in the Moves box below; choose the board's size first if it is another`;
    return;
  }
  // A line string is of the board shown; art names its own size, which the board takes.
  const lines = /^[01]+$/.test(text.trim());
  const query = new URLSearchParams(lines ? { board: boardName(), text } : { text });
  const response = await fetch(`/api/position?${query}`);
  const body = await response.text();
  if (!response.ok) {
    setState("error", body);
    return;
  }
  const p = JSON.parse(body);
  const [rows, cols] = p.board.split("x").map(Number);
  newGame(rows, cols, p.lines);
}

// --- a game's review -----------------------------------------------------------------

// The game on the board from its start: the moves played, then those undone (to redo).
const wholeGame = () => S.history.map((m) => m.line).concat(S.future.slice().reverse());

// How many moves of the reviewed game the board shows, or -1 when it shows another game.
function reviewAt() {
  if (!S.review) return -1;
  const played = S.history.map((m) => m.line);
  const same = played.length <= S.review.game.length && played.every((l, k) => l === S.review.game[k]);
  return same && S.start.join("") === S.review.start ? played.length : -1;
}

// Reviews the game on the board (from the position it started at) by the server's
// /api/review: every move with the boxes it gave up, proven or estimated.
async function reviewGame() {
  const game = wholeGame();
  if (!game.length) {
    $("review-message").textContent = "no moves to review: play a game, or paste its moves above";
    return;
  }
  const seconds = $("review-seconds").value || "2";
  const start = S.start.map((d) => (d ? "1" : "0")).join("");
  const query = new URLSearchParams({ board: boardName(), lines: start, moves: game.join(" "), seconds });
  $("review-message").textContent = `reviewing ${game.length} moves, up to ${seconds} s a position...`;
  $("review").disabled = true;
  let response, body;
  try {
    response = await fetch(`/api/review?${query}`);
    body = await response.text();
  } catch (e) {
    $("review-message").textContent = `the server did not answer: ${e}`;
    return;
  } finally {
    $("review").disabled = false;
  }
  if (!response.ok) {
    $("review-message").textContent = body;
    return;
  }
  const review = JSON.parse(body);
  S.review = { game, start, review };
  showReview();
  goTo(0);
}

// The review as a list: a move a row, its loss and whether it is proven; a mistake marked.
function showReview() {
  const { review } = S.review;
  const mistakes = new Map(review.mistakes.map((m) => [m.number, m]));
  const list = $("review-list");
  list.replaceChildren();
  for (const m of review.moves) {
    const li = document.createElement("li");
    li.dataset.number = m.number;
    const lost = m.proven ? `lost ${m.lost}` : `lost ~${m.lost} (estimate)`;
    const value = m.value_before === null ? "" : `, value ${signed(m.value_before)} before`;
    li.textContent = `${m.player} ${m.line} (${m.golem}): ${lost}${value}`;
    if (mistakes.has(m.number)) {
      li.classList.add("mistake");
      li.title = mistakes.get(m.number).why;
    }
    if (!m.proven) {
      li.classList.add("unproven");
      if (!li.title) li.title = m.estimate;
    }
    li.addEventListener("click", () => goTo(m.number - 1));
    list.appendChild(li);
  }
  const named = review.mistakes.map((m) => `move ${m.number} (${m.player} ${m.line}): ${m.why}`);
  const unproven = review.unproven.length ? `; ${review.unproven.length} moves not proven (marked ~)` : "; every move proven";
  $("review-message").textContent =
    `${review.result}${unproven}. ` + (named.length ? `Mistakes: ${named.join("; ")}` : "No mistakes.");
}

// Shows the reviewed game after its first k moves (the k+1-th move marked on the board).
function goTo(k) {
  if (!S.review) return;
  const game = S.review.game;
  k = Math.max(0, Math.min(k, game.length));
  S.drawn = S.start.slice();
  S.history = [];
  S.toMove = 0;
  for (const l of game.slice(0, k)) draw(l);
  S.future = game.slice(k).reverse();
  for (const li of $("review-list").children) li.classList.toggle("current", Number(li.dataset.number) === k + 1);
  update();
}

// On the board of a reviewed game: the mistakes drawn so far in red, and the next move of
// the game dashed, coloured by the boxes it lost, with its loss.
function reviewMarks(svg, cell, pad, font) {
  const at = reviewAt();
  if (at < 0) return;
  const { review } = S.review;
  const mistakes = new Set(review.mistakes.map((m) => m.number));
  const ends = (i) => {
    const k = coord(i);
    const x1 = pad + k.c * cell, y1 = pad + k.r * cell;
    return { x1, y1, x2: k.horizontal ? x1 + cell : x1, y2: k.horizontal ? y1 : y1 + cell };
  };
  for (const m of review.moves.slice(0, at)) {
    if (mistakes.has(m.number)) el("line", { class: "review-mistake", "data-line": m.index, ...ends(m.index) }, svg);
  }
  const next = review.moves[at];
  if (!next) return;
  const e = ends(next.index);
  const mark = el("line", { class: "review-next", "data-line": next.index, ...e, stroke: lostColour(next.lost) }, svg);
  el("title", {}, mark).textContent = `move ${next.number}, ${next.player}: lost ${next.lost}${next.proven ? "" : " (estimate)"}`;
  // Beside the line (below a horizontal one, right of a vertical one), clear of its value.
  const off = cell * 0.28, horizontal = e.y1 === e.y2;
  const t = el("text", {
    class: "value review-lost", x: (e.x1 + e.x2) / 2 + (horizontal ? 0 : off), y: (e.y1 + e.y2) / 2 + (horizontal ? off : 0),
    "font-size": font * 0.8, fill: lostColour(next.lost),
  }, svg);
  t.textContent = next.lost > 0 ? `-${next.lost}${next.proven ? "" : "?"}` : next.proven ? "ok" : "ok?";
}

function size(id) {
  const n = Number($(id).value);
  return Number.isInteger(n) && n >= 1 && n <= 16 ? n : null;
}

// The legend's colours: one swatch for each count of boxes lost, as the board colours them.
function legendColours() {
  const out = $("legend-colours");
  for (const lost of LOST_SHADES) {
    const span = document.createElement("span");
    span.className = "swatch";
    span.style.color = lostColour(lost);
    span.dataset.lost = lost;
    span.textContent = lost === 0 ? "best" : lost === LOST_SHADES[LOST_SHADES.length - 1] ? `${lost} or more` : `${lost}`;
    out.appendChild(span);
  }
}

function start() {
  legendColours();
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("play-moves").addEventListener("click", playMoves);
  $("again").addEventListener("click", () => { update(); });
  $("cancel").addEventListener("click", () => { if (S.abort) S.abort.abort(); });
  $("new").addEventListener("click", () => {
    const rows = size("rows"), cols = size("cols");
    if (rows === null || cols === null) {
      setState("error", "rows and columns are whole numbers from 1 to 16");
      return;
    }
    newGame(rows, cols);
  });
  $("dab").addEventListener("change", () => {
    S.dab = $("dab").value;
    describe();
    render();
    if (current()) dabMoves(S.seq);
  });
  $("show-values").addEventListener("change", render);
  $("engine").addEventListener("change", update);
  $("load").addEventListener("click", load);
  $("review").addEventListener("click", reviewGame);
  $("review-back").addEventListener("click", () => goTo(reviewAt() - 1));
  $("review-next").addEventListener("click", () => goTo(reviewAt() + 1));
  for (const b of document.querySelectorAll("[data-copy]")) {
    b.addEventListener("click", () => {
      const text = $(b.dataset.copy).value;
      if (navigator.clipboard) navigator.clipboard.writeText(text);
      else { $(b.dataset.copy).select(); document.execCommand("copy"); }
    });
  }
  const params = new URLSearchParams(window.location.search);
  if (params.get("seconds")) $("seconds").value = params.get("seconds");
  if (params.get("dab")) { $("dab").value = params.get("dab"); S.dab = $("dab").value; }
  const m = /^(\d+)x(\d+)$/.exec(params.get("board") || "");
  const rows = m ? Number(m[1]) : 3, cols = m ? Number(m[2]) : 3;
  const lines = params.get("lines");
  const ok = rows >= 1 && rows <= 16 && cols >= 1 && cols <= 16;
  S.rows = ok ? rows : 3; S.cols = ok ? cols : 3;
  newGame(S.rows, S.cols, lines && /^[01]*$/.test(lines) && lines.length === lineCount() ? lines : null);
}

window.addEventListener("load", () => { document.body.dataset.loadMs = performance.now().toFixed(1); });
start();
