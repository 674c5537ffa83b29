// mancala-arena game viewer: draws the positions the arena computed (report::viewer::GameView)
// as SVG and steps through them. It computes nothing about the game itself. Every text from the
// results folder goes in through textContent, never as markup.
//
// Mounts on every element with a `data-viewer` attribute: `data-game="ID"` names a
// <script type="application/json" id="ID"> holding one game; `data-games="ID"` one holding
// {"games": [...], "total": N}, shown with a game picker (report.html).
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var SIDE = ["south", "north"];

  function svg(name, attrs, text) {
    var e = document.createElementNS(SVG, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function html(name, cls, text) { // an HTML element with a class and text
    var e = document.createElement(name);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function readJson(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  // The player on `side` (0 south, 1 north) at board k: the first player sits south unless the
  // pie rule exchanged the seats.
  function seated(game, k, side) {
    var south = game.swapped[k] ? game.second : game.first;
    var north = game.swapped[k] ? game.first : game.second;
    return side === 0 ? south : north;
  }

  function Viewer(root, game) {
    this.root = root;
    this.game = game;
    this.ply = 0;
    this.last = game.boards.length - 1;
    this.build();
    this.show(0);
  }

  Viewer.prototype.build = function () {
    var g = this.game, self = this, n = g.pits, cell = 76, w = (n + 2) * cell, h = 236;
    this.root.textContent = "";
    this.root.classList.add("viewer");
    this.root.setAttribute("tabindex", "0");
    var head = html("p", "viewer-head");
    head.textContent = "Game " + g.game_id + ": " + g.first + " (first) against " + g.second +
      " · " + g.rules;
    this.root.appendChild(head);
    var board = svg("svg", { "class": "board", viewBox: "0 0 " + w + " " + h, role: "img",
      "aria-label": "board" });
    board.appendChild(svg("rect", { "class": "frame", x: 2, y: 26, width: w - 4, height: h - 52,
      rx: 28 }));
    this.label = [svg("text", { "class": "seat", x: w / 2, y: h - 6 }),
                  svg("text", { "class": "seat", x: w / 2, y: 18 })];
    board.appendChild(this.label[0]);
    board.appendChild(this.label[1]);
    this.pits = [[], []];
    this.stores = [];
    // North's store on the left, South's on the right; South's pits 1..n left to right below,
    // North's pits 1..n right to left above (counter-clockwise sowing).
    for (var s = 0; s < 2; s++) {
      var sx = s === 0 ? (n + 1) * cell : 0;
      var store = svg("g", { "class": "store", "data-side": SIDE[s] });
      store.appendChild(svg("rect", { x: sx + 10, y: 44, width: cell - 20, height: h - 88,
        rx: 26 }));
      var st = svg("text", { "class": "count", x: sx + cell / 2, y: h / 2 + 9 });
      store.appendChild(st);
      board.appendChild(store);
      this.stores.push({ g: store, text: st });
      for (var i = 1; i <= n; i++) {
        var col = s === 0 ? i : n + 1 - i;
        var cx = col * cell + cell / 2, cy = s === 0 ? h - 76 : 76;
        var pit = svg("g", { "class": "pit", "data-side": SIDE[s], "data-pit": i });
        pit.appendChild(svg("circle", { cx: cx, cy: cy, r: cell / 2 - 8 }));
        var t = svg("text", { "class": "count", x: cx, y: cy + 9 });
        pit.appendChild(t);
        pit.appendChild(svg("text", { "class": "pit-number", x: cx, y: s === 0 ? cy + 46 : cy - 38 },
          String(i)));
        board.appendChild(pit);
        this.pits[s].push({ g: pit, text: t });
      }
    }
    this.root.appendChild(board);

    var controls = html("div", "viewer-controls");
    function button(label, title, ply) {
      var b = html("button", "step", label);
      b.type = "button";
      b.title = title;
      b.setAttribute("data-step", title);
      b.addEventListener("click", function () { self.show(ply()); });
      controls.appendChild(b);
      return b;
    }
    button("«", "first", function () { return 0; });
    button("‹", "previous", function () { return self.ply - 1; });
    button("›", "next", function () { return self.ply + 1; });
    button("»", "last", function () { return self.last; });
    this.slider = html("input", "slider");
    this.slider.type = "range";
    this.slider.min = 0;
    this.slider.max = this.last;
    this.slider.setAttribute("aria-label", "sow");
    this.slider.addEventListener("input", function () { self.show(+self.slider.value); });
    controls.appendChild(this.slider);
    this.counter = html("span", "counter");
    controls.appendChild(this.counter);
    this.root.appendChild(controls);
    this.status = html("p", "viewer-status");
    this.root.appendChild(this.status);
    this.end = html("p", "viewer-end");
    this.root.appendChild(this.end);

    var list = html("ol", "moves");
    this.items = [];
    g.moves.forEach(function (mv, k) {
      var li = html("li", k < g.opening ? "opening" : "");
      var who = seated(g, k, g.sides[k]);
      li.textContent = (k + 1) + ". " + mv +
        (g.think_ms[k] === null ? "" : " (" + g.think_ms[k] + ")");
      li.title = who + (k < g.opening ? ", opening" : "");
      li.addEventListener("click", function () { self.show(k + 1); });
      list.appendChild(li);
      self.items.push(li);
    });
    var legend = html("p", "legend", g.opening > 0
      ? "Moves (the first " + g.opening + " are the opening, in italics; think times in ms):"
      : "Moves (think times in ms):");
    this.root.appendChild(legend);
    this.root.appendChild(list);
    if (g.error) this.root.appendChild(html("p", "warning", "Replay stopped: " + g.error));

    this.root.addEventListener("keydown", function (e) {
      var to = { ArrowLeft: self.ply - 1, ArrowRight: self.ply + 1, Home: 0, End: self.last }[e.key];
      if (to !== undefined) {
        e.preventDefault();
        self.show(to);
      }
    });
  };

  Viewer.prototype.show = function (ply) {
    var g = this.game, n = g.pits;
    ply = Math.max(0, Math.min(this.last, ply));
    this.ply = ply;
    this.root.setAttribute("data-ply", ply);
    var b = g.boards[ply], prev = ply > 0 ? g.boards[ply - 1] : b;
    var from = ply > 0 && g.moves[ply - 1] !== "swap"
      ? { side: g.sides[ply - 1], pit: +g.moves[ply - 1] } : null;
    for (var s = 0; s < 2; s++) {
      for (var i = 0; i < n; i++) {
        var k = s * (n + 1) + i, p = this.pits[s][i];
        p.text.textContent = b[k];
        p.g.classList.toggle("changed", b[k] !== prev[k]);
        p.g.classList.toggle("from", !!from && from.side === s && from.pit === i + 1);
        p.g.classList.toggle("empty", b[k] === 0);
      }
      var sk = s * (n + 1) + n;
      this.stores[s].text.textContent = b[sk];
      this.stores[s].g.classList.toggle("changed", b[sk] !== prev[sk]);
      var mover = g.to_move[ply] === s;
      this.label[s].textContent = SIDE[s] + ": " + seated(g, ply, s) + (mover ? " — to move" : "");
      this.label[s].classList.toggle("to-move", mover);
    }
    this.slider.value = ply;
    this.counter.textContent = "sow " + ply + " of " + this.last;
    if (ply === 0) {
      this.status.textContent = "Start position.";
    } else {
      var k = ply - 1, side = g.sides[k];
      this.status.textContent = seated(g, k, side) + " (" + SIDE[side] + ") played " +
        (g.moves[k] === "swap" ? "swap" : "pit " + g.moves[k]) +
        (k < g.opening ? " — opening move" : " — thought " + g.think_ms[k] + " ms");
    }
    this.status.classList.toggle("opening", ply > 0 && ply <= g.opening);
    if (ply === this.last) {
      this.end.textContent = "Result " + g.result + " (" + g.first + " " + g.score[0] + ", " +
        g.second + " " + g.score[1] + ") · " + g.termination +
        (g.detail ? ": " + (END_WORDS[g.detail] || g.detail) : "") +
        (g.forfeit ? " · forfeit by " + g.forfeit : "");
    } else {
      this.end.textContent = "";
    }
    this.items.forEach(function (li, k) { li.classList.toggle("current", k === ply - 1); });
  };

  // Why a game ended by the rules, in words (games.csv's `detail` of a `normal` end holds the
  // rules engine's name, e.g. `SideEmpty`; docs/rules.md).
  var END_WORDS = {
    SideEmpty: "one side's pits were empty",
    NoMove: "the side to move had no legal move",
    Majority: "a player had captured more than half the seeds",
    NoFeeding: "the side to move could not give the empty side any seeds",
    Repetition: "the position repeated",
    SowCap: "the sow cap was reached"
  };

  function mountPicker(root, data) {
    var games = data.games;
    if (!games.length) {
      root.textContent = "No game to show.";
      return;
    }
    var pick = html("select", "game-pick");
    pick.setAttribute("aria-label", "game");
    games.forEach(function (g, i) {
      var o = html("option", "", "game " + g.game_id + ": " + g.first + " – " + g.second + " " +
        g.result + " (" + g.termination + ")");
      o.value = i;
      pick.appendChild(o);
    });
    var holder = html("div");
    root.appendChild(pick);
    root.appendChild(holder);
    function show() { window.mancalaViewer = new Viewer(holder, games[+pick.value]); }
    pick.addEventListener("change", show);
    // `#game=ID&ply=N` in the address (the mistake meter's links) opens game ID at position N.
    function follow() {
      var g = /game=(\d+)/.exec(location.hash), p = /ply=(\d+)/.exec(location.hash);
      if (!g) return false;
      for (var i = 0; i < games.length; i++) {
        if (games[i].game_id === +g[1]) {
          pick.value = i;
          show();
          if (p) window.mancalaViewer.show(+p[1]);
          root.scrollIntoView();
          return true;
        }
      }
      return false;
    }
    window.addEventListener("hashchange", follow);
    if (!follow()) show();
  }

  function boot() {
    var roots = document.querySelectorAll("[data-viewer]");
    for (var i = 0; i < roots.length; i++) {
      var r = roots[i];
      if (r.getAttribute("data-games")) {
        mountPicker(r, readJson(r.getAttribute("data-games")));
      } else if (r.getAttribute("data-game")) {
        var v = new Viewer(r, readJson(r.getAttribute("data-game")));
        // `#ply=N` in the address opens the game at sow N.
        var m = /ply=(\d+)/.exec(location.hash);
        if (m) v.show(+m[1]);
        window.mancalaViewer = v;
        r.focus();
      }
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
