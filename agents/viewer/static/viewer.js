/* The ludo_flow replay viewer: draws boards as ludo_flow.render.svg_board does, from the
   compact positions of agents/viewer/frames.py. No network, no libraries. Text from records
   is only ever set as textContent. */
(function () {
  "use strict";
  if (window.LudoViewer) return;
  var SQ = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/";
  var FILES = "abcdefgh";

  function sqIndex(ch) { return SQ.indexOf(ch); }
  function sqName(sq) { return FILES[sq & 7] + ((sq >> 3) + 1); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(x, digits) {
    if (x === null || x === undefined) return "";
    return (Math.abs(x) >= 1000 || Number.isInteger(x)) ? String(Math.round(x)) : x.toFixed(digits === undefined ? 2 : digits);
  }

  /* One board picture as an SVG string. board: {square: code}; marks: {last:[], changed:[],
     rings:[], barred:null|[a,b]}; opts: {flip, targets: [], selected: sq, clickable}. */
  function drawBoard(cfg, palette, w, h, board, marks, opts) {
    opts = opts || {};
    var C = cfg.CELL, LB = cfg.LABEL_BAND, PAD = cfg.PAD, flip = !!opts.flip;
    var W = LB + w * C + PAD, H = PAD + h * C + LB;
    function origin(sq) {
      var f = sq & 7, r = sq >> 3;
      if (flip) { f = w - 1 - f; r = h - 1 - r; }
      return [LB + f * C, PAD + (h - 1 - r) * C];
    }
    function centre(sq) { var o = origin(sq); return [o[0] + C / 2, o[1] + C / 2]; }
    var out = ['<svg xmlns="http://www.w3.org/2000/svg" class="lfv-svg" width="' + W + '" height="' + H +
      '" viewBox="0 0 ' + W + ' ' + H + '" font-family="sans-serif">',
      '<rect x="0" y="0" width="' + W + '" height="' + H + '" fill="' + cfg.BACKGROUND + '"/>'];
    var r, f, sq, o, i;
    for (r = 0; r < h; r++) for (f = 0; f < w; f++) {
      sq = r * 8 + f; o = origin(sq);
      out.push('<rect class="sq" data-square="' + sqName(sq) + '" x="' + o[0] + '" y="' + o[1] + '" width="' + C +
        '" height="' + C + '" fill="' + (((r + f) % 2 === 0) ? cfg.DARK_SQUARE : cfg.LIGHT_SQUARE) + '"/>');
    }
    var tints = [["last-move", marks.last || [], cfg.LAST_MOVE_TINT], ["changed", marks.changed || [], cfg.CHANGED_TINT]];
    if (opts.selected !== undefined && opts.selected !== null) tints.push(["selected", [opts.selected], cfg.SELECTED_TINT]);
    for (i = 0; i < tints.length; i++) {
      var list = tints[i][1];
      for (var j = 0; j < list.length; j++) {
        o = origin(list[j]);
        out.push('<rect class="' + tints[i][0] + '" data-square="' + sqName(list[j]) + '" x="' + o[0] + '" y="' + o[1] +
          '" width="' + C + '" height="' + C + '" fill="' + tints[i][2][0] + '" fill-opacity="' + tints[i][2][1] + '" pointer-events="none"/>');
      }
    }
    var ly = PAD + h * C + cfg.LABEL_FONT + 2;
    for (f = 0; f < w; f++) {
      out.push('<text x="' + (LB + f * C + C / 2) + '" y="' + ly + '" font-size="' + cfg.LABEL_FONT +
        '" text-anchor="middle" fill="' + cfg.TEXT_COLOUR + '">' + FILES[flip ? w - 1 - f : f] + '</text>');
    }
    for (r = 0; r < h; r++) {
      var cy = centre(r * 8)[1];
      out.push('<text x="' + (LB / 2) + '" y="' + (cy + cfg.LABEL_FONT / 3) + '" font-size="' + cfg.LABEL_FONT +
        '" text-anchor="middle" fill="' + cfg.TEXT_COLOUR + '">' + (r + 1) + '</text>');
    }
    var squares = Object.keys(board).map(Number).sort(function (a, b) { return a - b; });
    for (i = 0; i < squares.length; i++) {
      sq = squares[i];
      var p = palette[board[sq]], c = centre(sq);
      out.push('<circle class="piece" data-square="' + sqName(sq) + '" cx="' + c[0] + '" cy="' + c[1] + '" r="' +
        (C * cfg.PIECE_RADIUS) + '" fill="' + p[0] + '" stroke="' + p[1] + '" stroke-width="' + cfg.PIECE_OUTLINE + '"/>');
      if (p[2]) out.push('<text class="letter" data-square="' + sqName(sq) + '" x="' + c[0] + '" y="' +
        (c[1] + cfg.PIECE_FONT / 3) + '" font-size="' + cfg.PIECE_FONT + '" text-anchor="middle" fill="' + p[1] +
        '" pointer-events="none">' + p[2] + '</text>');
    }
    var rings = marks.rings || [];
    for (i = 0; i < rings.length; i++) {
      c = centre(rings[i]);
      out.push('<circle class="ring" data-square="' + sqName(rings[i]) + '" cx="' + c[0] + '" cy="' + c[1] + '" r="' +
        (C * cfg.RING_RADIUS) + '" fill="none" stroke="' + cfg.MARK_COLOUR + '" stroke-width="' + cfg.RING_WIDTH + '" pointer-events="none"/>');
    }
    var targets = opts.targets || [];
    for (i = 0; i < targets.length; i++) {
      c = centre(targets[i]);
      out.push('<circle class="target" data-square="' + sqName(targets[i]) + '" cx="' + c[0] + '" cy="' + c[1] +
        '" r="' + (C * 0.14) + '" fill="' + cfg.TARGET_COLOUR + '" fill-opacity="0.75" pointer-events="none"/>');
    }
    if (marks.barred) {
      var a = centre(marks.barred[0]), b = centre(marks.barred[1]);
      out.push('<line class="barred" x1="' + a[0] + '" y1="' + a[1] + '" x2="' + b[0] + '" y2="' + b[1] + '" stroke="' +
        cfg.MARK_COLOUR + '" stroke-width="' + cfg.RING_WIDTH + '" stroke-dasharray="6 4" stroke-linecap="round" pointer-events="none"/>');
    }
    if (opts.clickable) {  /* one transparent hit area per square, above everything */
      for (r = 0; r < h; r++) for (f = 0; f < w; f++) {
        sq = r * 8 + f; o = origin(sq);
        out.push('<rect class="hit" data-square="' + sqName(sq) + '" x="' + o[0] + '" y="' + o[1] + '" width="' + C +
          '" height="' + C + '" fill="transparent" style="cursor:pointer"/>');
      }
    }
    out.push('</svg>');
    return out.join("");
  }

  /* Decode a game's plies into boards and marks, once per game. */
  function decode(game) {
    if (game._boards) return;
    var w = game.w, h = game.h, board = {}, i, k;
    for (i = 0; i < w * h; i++) {
      var ch = game.board[i];
      if (ch !== ".") board[Math.floor(i / w) * 8 + (i % w)] = ch;
    }
    var boards = [board], marks = [{last: [], changed: [], rings: [], barred: null}];
    for (i = 0; i < game.plies.length; i++) {
      var parts = game.plies[i].split(","), next = Object.assign({}, board);
      var last = [], changed = [], rings = [], barred = null;
      for (k = 0; k < parts[0].length; k++) last.push(sqIndex(parts[0][k]));
      for (k = 0; k + 1 < parts[1].length; k += 2) {
        var sq = sqIndex(parts[1][k]), code = parts[1][k + 1];
        if (code === ".") delete next[sq]; else next[sq] = code;
        if (last.indexOf(sq) < 0) changed.push(sq);
      }
      for (k = 0; k < parts[2].length; k++) rings.push(sqIndex(parts[2][k]));
      if (parts[3].length === 2) barred = [sqIndex(parts[3][0]), sqIndex(parts[3][1])];
      boards.push(next); marks.push({last: last, changed: changed, rings: rings, barred: barred});
      board = next;
    }
    game._boards = boards; game._marks = marks;
  }

  var SIDE = ["White", "Black"];

  function mount(root, data, options) {
    options = options || {};
    var cfg = data.config, palette = data.palette, games = data.games;
    root.classList.add("lfv");
    root.tabIndex = 0;
    root.textContent = "";
    var listPane = el("div", "lfv-list"), main = el("div", "lfv-main"), movesPane = el("div", "lfv-moves");
    root.appendChild(listPane); root.appendChild(main); root.appendChild(movesPane);
    if (games.length < 2) listPane.style.display = "none";

    /* ---- the game list, with filters */
    var filters = el("div", "lfv-filters");
    var agentBox = el("input"); agentBox.placeholder = "agent"; agentBox.className = "lfv-filter-agent";
    function select(cls, label, values) {
      var s = el("select", cls);
      s.appendChild(el("option", null, label)).value = "";
      values.forEach(function (v) { s.appendChild(el("option", null, v)).value = v; });
      return s;
    }
    function distinct(key) {
      var seen = {};
      games.forEach(function (g) { var v = g.info[key]; if (v !== undefined && v !== null) seen[v] = 1; });
      return Object.keys(seen).sort();
    }
    var resultSel = select("lfv-filter-result", "any result", distinct("result"));
    var termSel = select("lfv-filter-termination", "any termination", distinct("termination"));
    var count = el("span", "lfv-count");
    filters.appendChild(agentBox); filters.appendChild(resultSel); filters.appendChild(termSel); filters.appendChild(count);
    listPane.appendChild(filters);
    var table = el("table", "lfv-games"), thead = el("thead"), tbody = el("tbody"), hr = el("tr");
    ["id", "White", "Black", "result", "termination", "plies"].forEach(function (t) { hr.appendChild(el("th", null, t)); });
    thead.appendChild(hr); table.appendChild(thead); table.appendChild(tbody);
    var scroller = el("div", "lfv-scroll"); scroller.appendChild(table); listPane.appendChild(scroller);
    var rows = games.map(function (g, index) {
      var tr = el("tr");
      tr.dataset.index = index;
      [g.info.id, g.info.white, g.info.black, g.info.result, g.info.termination, g.moves.length - g.opening].forEach(function (v) {
        tr.appendChild(el("td", null, v === undefined ? "" : v));
      });
      tr.addEventListener("click", function () { show(index, 0); });
      return tr;
    });
    var visible = [];
    function applyFilters() {
      var a = agentBox.value.trim().toLowerCase(), res = resultSel.value, term = termSel.value;
      var frag = document.createDocumentFragment();
      visible = [];
      games.forEach(function (g, i) {
        var ok = (!a || String(g.info.white).toLowerCase().indexOf(a) >= 0 || String(g.info.black).toLowerCase().indexOf(a) >= 0) &&
          (!res || g.info.result === res) && (!term || g.info.termination === term);
        if (ok) { visible.push(i); frag.appendChild(rows[i]); }
      });
      tbody.textContent = ""; tbody.appendChild(frag);
      count.textContent = visible.length + " of " + games.length + " games";
    }
    [agentBox, resultSel, termSel].forEach(function (c) { c.addEventListener("input", applyFilters); });

    /* ---- header, board, controls, evaluation graph, status */
    var header = el("div", "lfv-header"), boardBox = el("div", "lfv-board"), controls = el("div", "lfv-controls");
    var evalBox = el("div", "lfv-eval"), status = el("div", "lfv-status");
    main.appendChild(header); main.appendChild(boardBox); main.appendChild(controls); main.appendChild(evalBox); main.appendChild(status);
    function button(label, title, fn) {
      var b = el("button", null, label); b.title = title; b.type = "button";
      b.addEventListener("click", function () { fn(); root.focus({preventScroll: true}); });
      controls.appendChild(b); return b;
    }
    button("|\u25c0", "start (Home)", function () { go(0); });
    button("\u25c0", "back (\u2190)", function () { go(cur - 1); });
    var slider = el("input", "lfv-slider"); slider.type = "range"; slider.min = 0; slider.value = 0;
    slider.addEventListener("input", function () { go(Number(slider.value)); });
    controls.appendChild(slider);
    button("\u25b6", "forward (\u2192)", function () { go(cur + 1); });
    button("\u25b6|", "end (End)", function () { go(game.moves.length); });
    button("\u21c5", "flip the board (f)", function () { flip = !flip; draw(); });
    /* autoplay: a ply every 1/speed seconds to the end of the game (space starts and stops) */
    var playButton = button("play", "play / pause (space)", function () { toggle(); });
    playButton.className = "lfv-play";
    var speedSel = el("select", "lfv-speed"); speedSel.title = "plies a second";
    [1, 2, 4, 8, 16].forEach(function (v) { var o = el("option", null, v + "/s"); o.value = v; speedSel.appendChild(o); });
    speedSel.value = "2";
    speedSel.addEventListener("change", function () { if (timer) { stop(); toggle(); } });
    controls.appendChild(speedSel);
    var plyLabel = el("span", "lfv-ply"); controls.appendChild(plyLabel);
    var timer = null;
    function stop() {
      if (timer) { clearTimeout(timer); timer = null; }
      playButton.textContent = "play"; root.removeAttribute("data-playing");
    }
    function toggle() {
      if (timer) { stop(); return; }
      if (!game) return;
      if (cur >= game.moves.length) go(0);
      playButton.textContent = "pause"; root.setAttribute("data-playing", "");
      (function tick() {
        timer = setTimeout(function () {
          go(cur + 1);
          if (cur >= game.moves.length) stop(); else tick();
        }, 1000 / Number(speedSel.value));
      })();
    }

    var game = null, gameIndex = -1, cur = 0, flip = false, moveRows = [];

    function headerLine(cls, parts) {
      var d = el("div", cls);
      parts.forEach(function (p) { if (p !== null && p !== "") d.appendChild(typeof p === "string" ? document.createTextNode(p) : p); });
      return d;
    }
    function show(index, ply) {
      stop();
      gameIndex = index; game = games[index]; decode(game);
      rows.forEach(function (r) { r.classList.remove("lfv-current"); });
      rows[index].classList.add("lfv-current");
      var i = game.info;
      header.textContent = "";
      header.appendChild(headerLine("lfv-title", [el("b", null, "White " + i.white), " \u2013 ", el("b", null, "Black " + i.black),
        "   " + (i.result || "") + (i.termination ? " (" + i.termination + ")" : "")]));
      var facts = [i.game + (i.variant ? " " + i.variant : "") + " " + game.w + "\u00d7" + game.h, "game " + i.id,
        (game.moves.length - game.opening) + " plies"];
      if (i.time_white !== undefined) facts.push("thinking: White " + fmt(i.time_white) + " s, Black " + fmt(i.time_black) + " s");
      if (i.forfeit) facts.push("forfeit by " + i.forfeit.side + ": " + i.forfeit.reason);
      header.appendChild(el("div", "lfv-facts", facts.join(" \u00b7 ")));
      header.appendChild(el("div", "lfv-opening", game.opening ? "opening: " + game.moves.slice(0, game.opening).join(" ") : "no opening moves"));
      slider.max = game.moves.length;
      buildMoves(); drawEval();
      go(ply === undefined ? 0 : ply, true);
    }
    function moveNumber(index) {  /* opening moves are o1, o2, ...; the agents' plies 1, 2, ... */
      return index <= game.opening ? "o" + index : String(index - game.opening);
    }
    function buildMoves() {
      movesPane.textContent = "";
      moveRows = [];
      var start = el("div", "lfv-move", "start"); start.dataset.ply = 0;
      start.addEventListener("click", function () { go(0); });
      movesPane.appendChild(start); moveRows.push(start);
      for (var k = 0; k < game.moves.length; k++) {
        var d = el("div", "lfv-move" + (k < game.opening ? " lfv-opening-move" : ""));
        d.dataset.ply = k + 1;
        d.appendChild(el("span", "lfv-num", moveNumber(k + 1) + "."));
        d.appendChild(el("span", "lfv-side lfv-side-" + game.movers[k], game.movers[k] === "0" ? "W" : "B"));
        d.appendChild(document.createTextNode(game.moves[k]));
        (function (target) { d.addEventListener("click", function () { go(target); }); })(k + 1);
        movesPane.appendChild(d); moveRows.push(d);
      }
    }
    var evalPoints = null;
    function drawEval() {
      evalBox.textContent = ""; evalPoints = null;
      if (!game.search) { evalBox.style.display = "none"; return; }
      evalBox.style.display = "";
      var n = game.moves.length, W = 360, H = 90, cap = 0, k;
      for (k = 0; k < game.search.length; k++) {
        var row = game.search[k];
        if (row && row[0] !== null) cap = Math.max(cap, Math.min(Math.abs(row[0]), cfg.SCORE_CAP));
      }
      cap = cap || 1;
      var pts = [];
      for (k = 0; k < game.search.length; k++) {
        var rw = game.search[k];
        if (!rw || rw[0] === null) continue;
        var s = Math.max(-cap, Math.min(cap, rw[0]));
        pts.push([(game.opening + k + 1) / Math.max(n, 1) * W, H / 2 - s / cap * (H / 2 - 4)]);
      }
      evalPoints = {W: W, H: H, n: n};
      var svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + H + '" class="lfv-graph">',
        '<rect width="' + W + '" height="' + H + '" fill="#f4f4f4"/>',
        '<line x1="0" y1="' + H / 2 + '" x2="' + W + '" y2="' + H / 2 + '" stroke="#999"/>',
        '<polyline fill="none" stroke="#1a6fe8" stroke-width="1.5" points="' + pts.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" ") + '"/>',
        '<line class="lfv-cursor" x1="0" y1="0" x2="0" y2="' + H + '" stroke="#d00"/>',
        '<text x="4" y="12" font-size="10" fill="#555">White +' + fmt(cap, 1) + '</text>',
        '<text x="4" y="' + (H - 4) + '" font-size="10" fill="#555">Black +' + fmt(cap, 1) + '</text></svg>'];
      evalBox.innerHTML = svg.join("");
      evalBox.firstChild.addEventListener("click", function (ev) {
        var rect = evalBox.firstChild.getBoundingClientRect();
        go(Math.round((ev.clientX - rect.left) / rect.width * n));
      });
    }
    function draw() {
      var svg = drawBoard(cfg, palette, game.w, game.h, game._boards[cur], game._marks[cur], {flip: flip});
      boardBox.innerHTML = svg;
      var s = boardBox.firstChild;
      s.setAttribute("data-ply", String(cur - game.opening));
      s.setAttribute("data-index", String(cur));
      s.setAttribute("data-game", String(game.info.id));
    }
    function go(ply, force) {
      if (!game) return;
      ply = Math.max(0, Math.min(game.moves.length, ply));
      if (ply === cur && !force) return;
      if (moveRows[cur]) moveRows[cur].classList.remove("lfv-current");
      cur = ply;
      draw();
      slider.value = cur;
      var mr = moveRows[cur];
      if (mr) {
        mr.classList.add("lfv-current");
        var top = mr.offsetTop - movesPane.offsetTop;
        if (top < movesPane.scrollTop || top > movesPane.scrollTop + movesPane.clientHeight - 20) movesPane.scrollTop = top - movesPane.clientHeight / 2;
      }
      var agentsPly = cur - game.opening;
      plyLabel.textContent = cur === 0 ? "start" : (agentsPly <= 0 ? "opening " + cur + "/" + game.opening : "ply " + agentsPly + "/" + (game.moves.length - game.opening));
      var text = cur === 0 ? "start position" : moveNumber(cur) + ". " + SIDE[Number(game.movers[cur - 1])] + " " + game.moves[cur - 1];
      var row = game.search && agentsPly > 0 ? game.search[agentsPly - 1] : null;
      if (row) {
        var bits = [];
        if (row[0] !== null) bits.push("score " + (row[0] > 0 ? "+" : "") + fmt(row[0]) + " (White's view)");
        if (row[1] !== null) bits.push("depth " + row[1]);
        if (row[2] !== null) bits.push("nodes " + row[2]);
        if (row[3] !== null) bits.push("simulations " + row[3]);
        if (row[4] !== null) bits.push(fmt(row[4], 3) + " s");
        if (row[5]) bits.push("pv " + row[5]);
        text += "   " + bits.join(", ");
      }
      if (cur === game.moves.length && game.info.result) text += "   \u2014 " + game.info.result + (game.info.termination ? " (" + game.info.termination + ")" : "");
      status.textContent = text;
      if (evalPoints) {
        var x = (cur / Math.max(evalPoints.n, 1) * evalPoints.W).toFixed(1), line = evalBox.querySelector(".lfv-cursor");
        line.setAttribute("x1", x); line.setAttribute("x2", x);
      }
      if (options.hash) {  /* the address names the game and ply shown: a link opens them */
        clearTimeout(addressTimer);  /* written once the stepping rests: the browser limits how often */
        addressTimer = setTimeout(function () {
          try { history.replaceState(null, "", "#game=" + encodeURIComponent(game.info.id) + "&ply=" + (cur - game.opening)); } catch (e) { /* not allowed here */ }
        }, 300);
      }
    }
    var addressTimer = null;
    /* "#game=ID&ply=N" (N the agents' ply, as the page numbers them; the opening's are 0 and
       below): show that game at that ply; false if the address names no game of the page. */
    function fromAddress() {
      var args = {};
      location.hash.replace(/^#/, "").split("&").forEach(function (part) {
        var k = part.indexOf("=");
        if (k > 0) { try { args[part.slice(0, k)] = decodeURIComponent(part.slice(k + 1)); } catch (e) { /* a bad escape */ } }
      });
      if (args.game === undefined) return false;
      for (var i = 0; i < games.length; i++) {
        if (String(games[i].info.id) === args.game) {
          var ply = parseInt(args.ply, 10);
          if (i !== gameIndex) show(i, 0);
          go(games[i].opening + (isNaN(ply) ? 0 : ply));
          return true;
        }
      }
      return false;
    }
    function nextGame(step) {
      var pos = visible.indexOf(gameIndex);
      if (!visible.length) return;
      pos = pos < 0 ? 0 : Math.max(0, Math.min(visible.length - 1, pos + step));
      show(visible[pos], 0);
    }
    function onKey(ev) {
      var t = ev.target && ev.target.tagName;
      if (t === "INPUT" && ev.target.type !== "range" || t === "SELECT") return;
      if (t === "BUTTON" && ev.key === " ") return;  /* the button's own click */
      var handled = true;
      switch (ev.key) {
        case "ArrowRight": go(cur + 1); break;
        case "ArrowLeft": go(cur - 1); break;
        case "Home": go(0); break;
        case "End": go(game.moves.length); break;
        case "ArrowDown": nextGame(1); break;
        case "ArrowUp": nextGame(-1); break;
        case "f": flip = !flip; draw(); break;
        case " ": toggle(); break;
        default: handled = false;
      }
      if (handled) ev.preventDefault();
    }
    (options.keyTarget || root).addEventListener("keydown", onKey);
    applyFilters();
    if (data.errors && data.errors.length) {  /* above the board: the list is hidden for one game */
      var errs = el("div", "lfv-errors", data.errors.length + " record(s) could not be replayed: " + data.errors.slice(0, 3).join("; "));
      main.insertBefore(errs, header);
    }
    if (!(options.hash && fromAddress())) {
      if (games.length) show(0, 0); else header.textContent = data.errors && data.errors.length ? "no game can be replayed" : "no games";
    }
    if (options.hash) window.addEventListener("hashchange", fromAddress);
    root.lfv = {go: go, show: show, state: function () { return {game: gameIndex, index: cur, ply: game ? cur - game.opening : 0}; }};
    return root.lfv;
  }

  window.LudoViewer = {mount: mount, drawBoard: drawBoard, decode: decode, sqName: sqName};
})();
