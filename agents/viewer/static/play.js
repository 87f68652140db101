/* The play page of `ludo-flow serve`: one game per tab, moves sent in notation. */
(function () {
  "use strict";
  var settings = JSON.parse(document.getElementById("play-settings").textContent);
  var cfg = settings.config, LV = window.LudoViewer;
  var root = document.getElementById("play");
  var session = null, view = null, selected = null, busy = false, pollTimer = null, human = "white";

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  var boardBox = el("div", "lfv-board"), panel = el("div", "lfv-play-panel"), movesPane = el("div", "lfv-moves");
  var main = el("div", "lfv-main");
  main.appendChild(boardBox); root.appendChild(main); root.appendChild(panel); root.appendChild(movesPane);
  var title = el("div", "lfv-title"), status = el("div", "lfv-status"), thinking = el("div", "lfv-thinking");
  var progressBox = el("table", "lfv-progress");
  var stats = el("div", "lfv-facts"), message = el("div", "lfv-message"), saved = el("div", "lfv-facts");
  var buttons = el("div");
  function button(label, cls, fn) { var b = el("button", cls, label); b.type = "button"; b.addEventListener("click", fn); buttons.appendChild(b); return b; }
  button("New game", "lfv-new", function () { newGame(human); });
  button("Undo", "lfv-undo", function () { post("undo", {}); });
  button("Swap colours", "lfv-swap", function () { post("swap", {}); });
  var agentBox = el("input", "lfv-agent"); agentBox.value = settings.agent; agentBox.title = "the agent spec of the next new game";
  var agentLine = el("div", null, "agent: "); agentLine.appendChild(agentBox);
  [title, status, buttons, agentLine, thinking, progressBox, stats, message, saved].forEach(function (e) { panel.appendChild(e); });

  function request(method, path, body) {
    var opts = {method: method, headers: {}};
    if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
    return fetch(path, opts).then(function (r) {
      return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || ("HTTP " + r.status)); return j; });
    });
  }
  /* A change waits for the state request in flight (`polling`): its answer would otherwise come
     after the change's, showing the game as it was, or a 404 for the game a new one closed. */
  var polling = null;
  function settled() { return polling || Promise.resolve(); }
  function post(what, body) {
    if (!session) return Promise.resolve();
    busy = true;
    return settled().then(function () {
      body.session = session;
      return request("POST", "/api/" + what, body);
    }).then(show, fail).then(function () { busy = false; });
  }
  function fail(err) { message.textContent = String(err.message || err); busy = false; schedule(); }
  function newGame(side) {
    busy = true;
    return settled().then(function () {
      return request("POST", "/api/new", {session: session, human: side, agent: agentBox.value.trim() || settings.agent});
    }).then(show, fail).then(function () { busy = false; });
  }

  function show(v) {
    view = v; session = v.session; human = v.human; selected = null;
    message.textContent = v.error || v.message || "";
    title.textContent = "You play " + cap(v.human) + " against " + v.agent;
    status.textContent = v.over ? "Game over: " + v.result + " \u2014 " + v.status : v.status;
    thinking.textContent = v.thinking !== null ? v.agent + " is thinking\u2026 " + v.thinking.toFixed(1) + " s" : "";
    showProgress(v.thinking !== null ? v.progress : null);
    var last = null;
    for (var i = v.moves.length - 1; i >= 0; i--) if (v.moves[i][1]) { last = v.moves[i]; break; }
    stats.textContent = last ? "agent's last move " + last[0] + ": " + describe(last[1]) : "";
    saved.textContent = v.saved ? "saved as game " + v.saved.id + " in " + v.saved.file + " (ludo-flow replay " + v.saved.file + " --game " + v.saved.id + ")" : "";
    drawMoves();
    draw();
    schedule();
  }
  /* The search so far, as the agent last reported it (alpha-beta: each finished depth; MCTS:
     every slice of its search). One row a figure; each cell carries its key in data-key. */
  function showProgress(p) {
    progressBox.textContent = "";
    progressBox.style.display = p ? "" : "none";
    if (!p) return;
    var rows = [];
    if (p.agent === "mcts") {
      rows.push(["simulations", "simulations", p.simulations]);
      rows.push(["best", "best move", p.best + (p.share !== null && p.share !== undefined ? " (" + (100 * p.share).toFixed(1) + "% of visits)" : "")]);
      rows.push(["score", "score (mean value)", p.score === null ? "\u2014" : Number(p.score).toFixed(3)]);
      rows.push(["depth", "deepest path", p.depth]);
      rows.push(["nodes", "tree nodes", p.nodes]);
    } else {
      rows.push(["depth", "depth finished", p.depth]);
      rows.push(["best", "best move", p.best]);
      rows.push(["score", "score", p.score === null ? "\u2014" : Number(p.score).toFixed(3)]);
      rows.push(["nodes", "nodes", p.nodes]);
    }
    rows.push(["pv", "principal variation", p.pv]);
    rows.forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("th", null, r[1]));
      var td = el("td", null, r[2]);
      td.setAttribute("data-key", r[0]);
      tr.appendChild(td);
      progressBox.appendChild(tr);
    });
  }
  function cap(s) { return s.charAt(0).toUpperCase() + s.slice(1); }
  function describe(s) {
    var bits = [];
    if (s.score !== undefined && s.score !== null) bits.push("score " + s.score);
    if (s.depth !== undefined) bits.push("depth " + s.depth);
    if (s.simulations !== undefined) bits.push("simulations " + s.simulations);
    if (s.nodes !== undefined) bits.push("nodes " + s.nodes);
    if (s.time !== undefined) bits.push(Number(s.time).toFixed(2) + " s");
    if (s.pv) bits.push("pv " + s.pv);
    return bits.join(", ") || "no search statistics";
  }
  function schedule() {
    if (pollTimer) { clearTimeout(pollTimer); pollTimer = null; }
    if (view && view.thinking !== null) pollTimer = setTimeout(poll, 100);
  }
  function poll() {
    pollTimer = null;
    if (busy || !session) { schedule(); return; }
    polling = request("GET", "/api/state?s=" + encodeURIComponent(session)).then(show, fail)
      .then(function () { polling = null; });
  }
  function drawMoves() {
    movesPane.textContent = "";
    view.moves.forEach(function (m, k) {
      var d = el("div", "lfv-move");
      d.appendChild(el("span", "lfv-num", (k + 1) + "."));
      d.appendChild(document.createTextNode(m[0] + (m[1] ? "  (agent)" : "")));
      movesPane.appendChild(d);
    });
    movesPane.scrollTop = movesPane.scrollHeight;
  }
  function draw() {
    var palette = {}, codes = {}, board = {}, n = 0;
    view.pieces.forEach(function (p) {
      var key = p[1] + "|" + p[2] + "|" + p[3];
      if (!(key in codes)) { codes[key] = "c" + (n++); palette[codes[key]] = [p[1], p[2], p[3]]; }
      board[p[0]] = codes[key];
    });
    var targets = [];
    if (selected !== null) view.legal.forEach(function (m) { if (m[1] === selected && m[2] !== selected) targets.push(m[2]); });
    var flip = view.human === "black";
    boardBox.innerHTML = LV.drawBoard(cfg, palette, view.w, view.h, board, view.marks,
      {flip: flip, clickable: true, selected: selected, targets: targets});
    var svg = boardBox.firstChild;
    svg.setAttribute("data-moves", String(view.moves.length));
    Array.prototype.forEach.call(svg.querySelectorAll(".hit"), function (r) {
      r.addEventListener("click", function () { click(r.getAttribute("data-square")); });
    });
  }
  function sqIndex(name) { return "abcdefgh".indexOf(name[0]) + 8 * (Number(name.slice(1)) - 1); }
  function click(name) {
    if (!view || busy || view.over || view.to_move !== view.human) return;
    var sq = sqIndex(name), k;
    for (k = 0; k < view.legal.length; k++) {
      var m = view.legal[k];
      if (m[1] === sq && m[2] === sq) { send(m[0]); return; }           /* a wash choice */
      if (selected !== null && m[1] === selected && m[2] === sq) { send(m[0]); return; }
    }
    var from = view.legal.some(function (m) { return m[1] === sq; });
    selected = from && selected !== sq ? sq : null;
    draw();
  }
  function send(word) { selected = null; message.textContent = ""; post("move", {move: word}); }

  window.addEventListener("pagehide", function () {
    if (!session) return;
    try {
      fetch("/api/close", {method: "POST", keepalive: true, headers: {"Content-Type": "application/json"},
        body: JSON.stringify({session: session})});
    } catch (e) { /* the page is going away */ }
  });
  /* The server drops a game whose page is gone: an open page says it is there, however long the
     person thinks (requests are otherwise sent only while the agent thinks). */
  setInterval(function () {
    var pinged = session;
    if (!pinged) return;
    request("POST", "/api/ping", {session: pinged}).then(function (j) {
      if (!j.open && pinged === session) message.textContent = "the server has closed this game: reload the page";
    }, function (err) { message.textContent = String(err.message || err); });
  }, settings.heartbeat_ms);
  window.lfvPlay = {view: function () { return view; }, busy: function () { return busy; }, send: send, click: click};
  newGame("white");
})();
