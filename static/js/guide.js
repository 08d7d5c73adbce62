/* The guided first run: one hint at a time, the panel it talks about outlined and scrolled into
   view. Shown on a first visit (or with ?guide=1) until dismissed; the dismissal is remembered in
   this browser only. A hint that asks for an action (data-done) moves on once it is done. Students
   who arrive by a shared link or QR code (guide=0) are never shown it. Its words come translated
   from the template (data-label-* on #guide). */
(function () {
  "use strict";

  var KEY = "token-by-token:guide-dismissed";
  var index = 0;

  function $(id) { return document.getElementById(id); }

  function remembered() {
    try { return window.localStorage.getItem(KEY) === "1"; } catch (e) { return false; }
  }

  function remember() {
    try { window.localStorage.setItem(KEY, "1"); } catch (e) { /* private mode: forget */ }
  }

  function hints() { return $("guide").querySelectorAll(".guide-hints li"); }

  function clearTargets() {
    document.querySelectorAll(".guide-target").forEach(function (el) { el.classList.remove("guide-target"); });
  }

  function show(i) {
    var all = hints();
    index = i;
    all.forEach(function (li, j) { li.hidden = j !== i; });
    clearTargets();
    var target = $(all[i].getAttribute("data-target"));
    if (target) {
      target.classList.add("guide-target");
      // The guide sticks to the top of the window: the panel goes just below it.
      document.documentElement.style.setProperty("--guide-height", ($("guide").offsetHeight + 16) + "px");
      target.scrollIntoView({ block: "start", behavior: reducedMotion() ? "auto" : "smooth" });
    }
    var guide = $("guide");
    guide.querySelector(".guide-count").textContent = guide.getAttribute("data-label-count")
      .replace("{n}", i + 1).replace("{total}", all.length);
    $("guide-next").textContent = guide.getAttribute(i === all.length - 1 ? "data-label-done" : "data-label-next");
  }

  function reducedMotion() {
    return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  function isOpen() { return $("guide") && !$("guide").hidden; }

  // What a request did, in the words of data-done: "prompt", "step" or "temperature".
  function doneBy(elt) {
    if (!elt) return null;
    if (elt.id === "prompt" || elt.id === "temperature") return elt.id;
    return elt.getAttribute && elt.getAttribute("data-control") === "step" ? "step" : null;
  }

  function next() { if (index >= hints().length - 1) close(); else show(index + 1); }

  function close() {
    $("guide").hidden = true;
    clearTargets();
    remember();
  }

  function open() {
    $("guide").hidden = false;
    show(0);
  }

  var clicks = {
    "guide-next": next,
    "guide-dismiss": close,
    "guide-restart": function () {
      var help = $("help");
      if (help && help.open) help.close();
      open();
    }
  };

  // Bound once, on the document, and found by id.
  document.addEventListener("click", function (event) {
    var target = event.target.closest && event.target.closest("#guide-next, #guide-dismiss, #guide-restart");
    if (target && $("guide")) clicks[target.id]();
  });

  // The answer replaces the panels after the request: move on (or outline the panel again) once it has.
  // What was pressed is read before the request: the answer may replace it (the phone's step bar), and
  // htmx then names another element as the request's.
  var pressed = null, done = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    pressed = isOpen() ? doneBy(event.detail.elt) : null;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    done = isOpen() && event.detail.successful ? pressed : null;
    pressed = null;
  });

  document.addEventListener("htmx:afterSettle", function () {
    if (!isOpen()) return;
    var wanted = hints()[index].getAttribute("data-done");
    if (wanted && wanted === done) { done = null; next(); return; }
    var target = $(hints()[index].getAttribute("data-target"));
    if (target) target.classList.add("guide-target");
  });

  document.addEventListener("DOMContentLoaded", function () {
    var guide = $("guide");
    if (!guide) return;
    if (guide.getAttribute("data-skip") === "1") { remember(); return; } // a student, by a shared link
    if (document.querySelector(".present")) return; // not on the projector
    if (guide.getAttribute("data-force") === "1" || !remembered()) open();
  });
})();
