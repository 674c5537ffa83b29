// arena serve: keeps the runs page and a run page up to date by polling the JSON API.
// The HTML it inserts was escaped by the server; it never builds markup from data itself.
(function () {
  "use strict";

  function get(url) {
    return fetch(url, { cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.json();
    });
  }

  // The runs page: the table every 2 s.
  function pollRuns(el) {
    function tick() {
      get(el.getAttribute("data-poll"))
        .then(function (d) { el.innerHTML = d.html; })
        .catch(function () {})
        .then(function () { setTimeout(tick, 2000); });
    }
    setTimeout(tick, 2000);
  }

  // A run page: the progress line every second; the other sections when their version changed.
  function pollRun(el) {
    var run = el.getAttribute("data-run");
    function tick() {
      var v = el.getAttribute("data-version");
      get("/api/run?id=" + run + "&v=" + v)
        .then(function (d) {
          document.getElementById("progress").innerHTML = d.progress;
          if (d.sections) {
            el.setAttribute("data-version", d.version);
            d.sections.forEach(function (s) {
              var sec = document.getElementById(s[0]);
              if (!sec) {
                sec = document.createElement("section");
                sec.id = s[0];
                el.appendChild(sec);
              }
              // Keep a half-typed game id in the form.
              if (s[0] === "recent" && sec.contains(document.activeElement)) return;
              sec.innerHTML = s[1];
            });
          }
        })
        .catch(function () {})
        .then(function () { setTimeout(tick, 1000); });
    }
    setTimeout(tick, 1000);
  }

  function boot() {
    var runs = document.getElementById("runs");
    if (runs) pollRuns(runs);
    var live = document.getElementById("live");
    if (live) pollRun(live);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
