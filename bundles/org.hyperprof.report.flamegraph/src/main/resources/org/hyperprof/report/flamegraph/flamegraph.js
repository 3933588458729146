"use strict";
// Hyperprof flame graph: hover details, click to zoom, search. Embedded in the SVG it serves, so
// the file works offline and alone. Every frame is a <g class="f KIND"> holding a <title>, a <rect>
// and a <text>; its place in the graph is in whole samples: data-o (first sample), data-s
// (samples), data-d (depth, 0 = all). Positions are recomputed from these, never from pixels, so
// zooming in and out again lands exactly where the Java side drew the frame.
// A URL fragment such as #search=tcp_v4_rcv&zoom=Domain-0&hover=main applies a search, a zoom and
// the hover details of a frame on load: a link can show a finding, and a headless browser can check
// what the script does.

var hyperprof = {
  svg: null,
  frames: [],
  total: 1,
  left: 0,
  width: 1,
  charWidth: 7.3,
  zoomed: null,
  term: ""
};

function hyperprofFlameGraph() {
  var hp = hyperprof;
  var svg = document.documentElement;
  hp.svg = svg;
  hp.total = Number(svg.getAttribute("data-total"));
  hp.left = Number(svg.getAttribute("data-left"));
  hp.width = Number(svg.getAttribute("data-width"));
  hp.charWidth = Number(svg.getAttribute("data-char-width"));
  hp.details = document.getElementById("details");
  hp.matched = document.getElementById("matched");
  hp.reset = document.getElementById("reset");
  var groups = document.querySelectorAll("g.f");
  for (var i = 0; i < groups.length; i++) {
    var g = groups[i];
    var frame = {
      g: g,
      rect: g.querySelector("rect"),
      text: g.querySelector("text"),
      name: g.getAttribute("data-n"),
      info: g.querySelector("title").textContent,
      start: Number(g.getAttribute("data-o")),
      samples: Number(g.getAttribute("data-s")),
      depth: Number(g.getAttribute("data-d")),
      x: Number(g.querySelector("rect").getAttribute("x")),
      w: Number(g.querySelector("rect").getAttribute("width"))
    };
    hp.frames.push(frame);
    g.addEventListener("mouseover", hyperprofShowDetails.bind(null, frame));
    g.addEventListener("mouseout", hyperprofShowDetails.bind(null, null));
    g.addEventListener("click", hyperprofZoom.bind(null, frame));
  }
  hp.reset.addEventListener("click", hyperprofUnzoom);
  document.getElementById("search").addEventListener("click", hyperprofAskSearch);
  document.addEventListener("keydown", function (e) {
    if ((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F")) {
      e.preventDefault();
      hyperprofAskSearch();
    } else if (e.key === "Escape") {
      hyperprofUnzoom();
      hyperprofSearch("");
    }
  });
  hyperprofApplyFragment(window.location.hash);
  svg.setAttribute("data-ready", "true");
}

// A label that fits in width px: the whole name, or its start followed by "..", or nothing.
function hyperprofLabel(name, width) {
  var fit = Math.floor((width - 6) / hyperprof.charWidth);
  if (fit < 3) {
    return "";
  }
  if (name.length <= fit) {
    return name;
  }
  var cut = fit - 2;
  var code = name.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) {
    cut--;
  }
  return name.substring(0, cut) + "..";
}

function hyperprofPlace(frame, x, width) {
  frame.rect.setAttribute("x", x.toFixed(2));
  frame.rect.setAttribute("width", width.toFixed(2));
  frame.text.setAttribute("x", (x + 3).toFixed(2));
  frame.text.textContent = hyperprofLabel(frame.name, width);
}

function hyperprofShowDetails(frame) {
  var hp = hyperprof;
  if (frame) {
    hp.details.textContent = frame.info;
  } else if (hp.zoomed) {
    hp.details.textContent = "Zoomed into " + hp.zoomed.info;
  } else {
    hp.details.textContent = " ";
  }
}

// Zoom into a frame: it and everything above it fill the width, the frames below it (its callers)
// stay full width and dimmed, every other frame is hidden. Clicking the whole-session frame resets.
function hyperprofZoom(target) {
  var hp = hyperprof;
  if (target.depth === 0) {
    hyperprofUnzoom();
    return;
  }
  var from = target.start;
  var to = target.start + target.samples;
  var scale = hp.width / target.samples;
  for (var i = 0; i < hp.frames.length; i++) {
    var f = hp.frames[i];
    var end = f.start + f.samples;
    if (f.depth >= target.depth && f.start >= from && end <= to) {
      f.g.classList.remove("hidden", "anc");
      hyperprofPlace(f, hp.left + (f.start - from) * scale, f.samples * scale);
    } else if (f.depth < target.depth && f.start <= from && end >= to) {
      f.g.classList.remove("hidden");
      f.g.classList.add("anc");
      hyperprofPlace(f, hp.left, hp.width);
    } else {
      f.g.classList.add("hidden");
    }
  }
  hp.zoomed = target;
  hp.svg.setAttribute("data-zoom", target.name);
  hp.reset.classList.remove("hidden");
  hyperprofShowDetails(null);
}

function hyperprofUnzoom() {
  var hp = hyperprof;
  for (var i = 0; i < hp.frames.length; i++) {
    var f = hp.frames[i];
    f.g.classList.remove("hidden", "anc");
    hyperprofPlace(f, f.x, f.w);
  }
  hp.zoomed = null;
  hp.svg.removeAttribute("data-zoom");
  hp.reset.classList.add("hidden");
  hyperprofShowDetails(null);
}

function hyperprofAskSearch() {
  var term = window.prompt("Search frames (a regular expression; empty to clear)", hyperprof.term);
  if (term !== null) {
    hyperprofSearch(term);
  }
}

// Marks every frame whose name matches, and shows the share of all samples under a match. A match
// nested in another match is not counted twice: flame-graph intervals are either disjoint or
// nested, so after sorting by start (wider first) a frame starting before the end of the last
// counted one lies inside it.
function hyperprofSearch(term) {
  var hp = hyperprof;
  hp.term = term;
  var matcher;
  try {
    var re = new RegExp(term);
    matcher = function (name) { return re.test(name); };
  } catch (e) {
    matcher = function (name) { return name.indexOf(term) >= 0; };
  }
  var hits = [];
  for (var i = 0; i < hp.frames.length; i++) {
    var f = hp.frames[i];
    if (term !== "" && matcher(f.name)) {
      f.g.classList.add("m");
      hits.push(f);
    } else {
      f.g.classList.remove("m");
    }
  }
  if (term === "") {
    hp.matched.textContent = " ";
    hp.svg.removeAttribute("data-search");
    hp.svg.removeAttribute("data-matched");
    hp.svg.removeAttribute("data-matched-samples");
    return;
  }
  hits.sort(function (a, b) { return a.start - b.start || a.depth - b.depth; });
  var covered = 0;
  var end = -1;
  for (var j = 0; j < hits.length; j++) {
    if (hits[j].start >= end) {
      covered += hits[j].samples;
      end = hits[j].start + hits[j].samples;
    }
  }
  var percent = (100 * covered / hp.total).toFixed(2);
  hp.matched.textContent = "Matched: " + percent + "% (" + covered + (covered === 1 ? " sample, " : " samples, ")
      + hits.length + (hits.length === 1 ? " frame)" : " frames)");
  hp.svg.setAttribute("data-search", term);
  hp.svg.setAttribute("data-matched", percent);
  hp.svg.setAttribute("data-matched-samples", String(covered));
}

// "#search=REGEX&zoom=NAME&hover=NAME": search first, then zoom into the widest frame named NAME,
// then show the details of the widest frame named as hover says.
function hyperprofApplyFragment(hash) {
  if (!hash || hash.length < 2) {
    return;
  }
  var parts = hash.substring(1).split("&");
  var zoomName = null;
  var hoverName = null;
  for (var i = 0; i < parts.length; i++) {
    var eq = parts[i].indexOf("=");
    if (eq < 0) {
      continue;
    }
    var key = parts[i].substring(0, eq);
    var value = decodeURIComponent(parts[i].substring(eq + 1));
    if (key === "search") {
      hyperprofSearch(value);
    } else if (key === "zoom") {
      zoomName = value;
    } else if (key === "hover") {
      hoverName = value;
    }
  }
  hyperprofOnWidest(zoomName, hyperprofZoom, "data-zoom-missing");
  hyperprofOnWidest(hoverName, hyperprofShowDetails, "data-hover-missing");
}

// Applies action to the widest frame called name (none given: nothing); a name no frame has is
// noted on the svg element as attribute missing, so a stale link says why nothing happened.
function hyperprofOnWidest(name, action, missing) {
  if (name === null) {
    return;
  }
  var widest = hyperprofWidest(name);
  if (widest) {
    action(widest);
  } else {
    hyperprof.svg.setAttribute(missing, name);
  }
}

function hyperprofWidest(name) {
  var best = null;
  for (var i = 0; i < hyperprof.frames.length; i++) {
    var f = hyperprof.frames[i];
    if (f.name === name && (best === null || f.samples > best.samples)) {
      best = f;
    }
  }
  return best;
}
