// Filters of the mcp-conform HTML report. Without this script every card and matrix row stays
// visible and the filter bar stays hidden. The script only reads the page: it never inserts
// markup, so nothing the server wrote can become an element.
(function () {
  "use strict";
  var bar = document.getElementById("filters");
  if (!bar) {
    return;
  }
  var PROBLEMS = ["fail", "warn", "error", "untestable", "xfail"];
  var boxes = function (name) {
    return Array.prototype.slice.call(bar.querySelectorAll("input[name=" + name + "]"));
  };
  var all = function (sel) {
    return Array.prototype.slice.call(document.querySelectorAll(sel));
  };
  var cards = all("article.card");
  var rules = all("section.rule");
  var features = all("section.feature");
  var rows = all("tr.rule-row");
  var groups = all("tbody.fgroup-rows");
  var cells = all(".matrix td a.v");
  var shown = document.getElementById("shown");

  function checked(name) {
    var set = {};
    boxes(name).forEach(function (b) {
      if (b.checked) {
        set[b.value] = true;
      }
    });
    return set;
  }

  function apply() {
    var verdicts = checked("verdict");
    var areas = checked("area");
    var n = 0;
    cards.forEach(function (c) {
      var on = verdicts[c.dataset.verdict] === true && areas[c.dataset.area] === true;
      c.hidden = !on;
      if (on) {
        n++;
      }
    });
    rules.forEach(function (r) {
      r.hidden = r.querySelector("article.card:not([hidden])") === null;
    });
    features.forEach(function (f) {
      f.hidden = f.querySelector("section.rule:not([hidden])") === null;
    });
    rows.forEach(function (row) {
      var vs = row.dataset.verdicts.split(" ");
      var on = areas[row.dataset.area] === true && vs.some(function (v) { return verdicts[v] === true; });
      row.hidden = !on;
    });
    groups.forEach(function (g) {
      g.hidden = g.querySelector("tr.rule-row:not([hidden])") === null;
    });
    cells.forEach(function (a) {
      a.classList.toggle("dim", verdicts[a.dataset.verdict] !== true);
    });
    shown.textContent = n + " of " + cards.length + " results shown";
  }

  function setAll(name, to) {
    boxes(name).forEach(function (b) {
      b.checked = to === "all" || (to === "problems" && PROBLEMS.indexOf(b.value) >= 0);
    });
    apply();
  }

  // reveal makes the target of the current #fragment visible: filters are reset when they hide
  // it, and a frame's <details> is opened.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    if (!el) {
      return;
    }
    var hidden = false;
    for (var p = el; p; p = p.parentElement) {
      if (p.hidden) {
        hidden = true;
      }
    }
    if (hidden) {
      boxes("verdict").concat(boxes("area")).forEach(function (b) { b.checked = true; });
      apply();
    }
    if (el.tagName === "DETAILS") {
      el.open = true;
    }
    el.scrollIntoView();
  }

  bar.addEventListener("change", apply);
  bar.addEventListener("click", function (e) {
    var t = e.target;
    if (t.tagName === "BUTTON" && t.dataset.filter) {
      setAll(t.dataset.filter, t.dataset.to);
    }
  });
  window.addEventListener("hashchange", reveal);
  bar.hidden = false;
  apply();
  if (location.hash) {
    reveal();
  }
})();
