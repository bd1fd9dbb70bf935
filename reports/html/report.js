// Filters of the mcp-conform HTML report. The page opens with the verdicts the markup leaves
// unchecked (pass and na) hidden; without this script every card and matrix row stays visible
// and the filter bar stays hidden. The script only reads the page, toggles `hidden` and a
// class, and scrolls: it never inserts markup, so nothing the server wrote can become an
// element.
(function () {
  "use strict";
  var bar = document.getElementById("filters");
  if (!bar) {
    return;
  }
  var PROBLEMS = ["fail", "warn", "error", "untestable", "xfail", "notrun"];
  var list = function (nodes) {
    return Array.prototype.slice.call(nodes);
  };
  var boxes = function (name) {
    return list(bar.querySelectorAll("input[name=" + name + "]"));
  };
  var cards = list(document.querySelectorAll("article.card"));
  var rules = list(document.querySelectorAll("section.rule")).map(function (r) {
    return { el: r, cards: list(r.querySelectorAll("article.card")), on: true };
  });
  var features = list(document.querySelectorAll("section.feature")).map(function (f) {
    return { el: f, rules: rules.filter(function (r) { return f.contains(r.el); }) };
  });
  var groups = list(document.querySelectorAll("tbody.fgroup-rows")).map(function (g) {
    return {
      el: g,
      rows: list(g.querySelectorAll("tr.rule-row")).map(function (row) {
        return { el: row, area: row.dataset.area, verdicts: row.dataset.verdicts.split(" ") };
      })
    };
  });
  var cells = list(document.querySelectorAll(".matrix td a.v"));
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

  // show sets el.hidden only when it changes, so an unchanged element costs no style work.
  function show(el, on) {
    if (el.hidden === on) {
      el.hidden = !on;
    }
    return on;
  }

  function apply() {
    var verdicts = checked("verdict");
    var areas = checked("area");
    var n = 0;
    cards.forEach(function (c) {
      var on = verdicts[c.dataset.verdict] === true && areas[c.dataset.area] === true;
      c.on = show(c, on);
      if (on) {
        n++;
      }
    });
    rules.forEach(function (r) {
      r.on = show(r.el, r.cards.some(function (c) { return c.on; }));
    });
    features.forEach(function (f) {
      show(f.el, f.rules.some(function (r) { return r.on; }));
    });
    groups.forEach(function (g) {
      var any = false;
      g.rows.forEach(function (row) {
        var on = areas[row.area] === true && row.verdicts.some(function (v) { return verdicts[v] === true; });
        any = show(row.el, on) || any;
      });
      show(g.el, any);
    });
    cells.forEach(function (a) {
      var dim = verdicts[a.dataset.verdict] !== true;
      if (a.classList.contains("dim") !== dim) {
        a.classList.toggle("dim", dim);
      }
    });
    var off = boxes("verdict").filter(function (b) { return !b.checked; }).map(function (b) { return b.value; });
    shown.textContent = n + " of " + cards.length + " results shown" + (off.length && n < cards.length ? "; hidden: " + off.join(", ") : "");
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
    var el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!el) {
      return;
    }
    for (var p = el; p; p = p.parentElement) {
      if (p.hidden) {
        setAll("verdict", "all");
        setAll("area", "all");
        break;
      }
    }
    if (el.tagName === "DETAILS") {
      el.open = true;
    }
    settle(el);
  }

  // settle scrolls el into view below the filter bar, and again whenever the results change
  // size during the next 2 s: cards render lazily (content-visibility: auto), so the first
  // rendering of the cards around el changes their height and shifts el. The reader's own
  // scrolling (wheel, touch, key, click) ends it, and so does the next settle.
  var unsettle = null;
  function settle(el) {
    if (unsettle) {
      unsettle();
    }
    var place = function () {
      el.scrollIntoView();
      below(el);
    };
    place();
    if (!window.ResizeObserver) {
      return;
    }
    var ro = new ResizeObserver(place);
    var inputs = ["wheel", "touchstart", "keydown", "mousedown"];
    var timer;
    var stop = function () {
      ro.disconnect();
      clearTimeout(timer);
      inputs.forEach(function (e) { window.removeEventListener(e, stop, true); });
      unsettle = null;
    };
    ro.observe(document.querySelector("main"));
    inputs.forEach(function (e) { window.addEventListener(e, stop, true); });
    timer = setTimeout(stop, 2000);
    unsettle = stop;
  }

  // below scrolls el out from under the sticky filter bar, whose height depends on how many
  // chips wrap (scroll-margin-top in the stylesheet is only an estimate).
  function below(el) {
    if (getComputedStyle(bar).position !== "sticky") {
      return;
    }
    var gap = el.getBoundingClientRect().top - bar.getBoundingClientRect().bottom - 6;
    if (gap < 0) {
      window.scrollBy(0, gap);
    }
  }

  bar.addEventListener("change", apply);
  bar.addEventListener("click", function (e) {
    var t = e.target;
    if (t.tagName === "BUTTON" && t.dataset.filter) {
      setAll(t.dataset.filter, t.dataset.to);
    }
  });
  window.addEventListener("hashchange", reveal);
  // A link to the fragment already current fires no hashchange: reveal it all the same.
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[href^='#']");
    if (a && a.getAttribute("href") === location.hash) {
      e.preventDefault();
      reveal();
    }
  });
  bar.hidden = false;
  apply();
  if (location.hash) {
    reveal();
  }
})();
