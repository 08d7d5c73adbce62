/* The guided first run: one hint at a time, the panel it talks about outlined. Shown on a first
   visit (or with ?guide=1) until dismissed; the dismissal is remembered in this browser only. */
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
    if (target) target.classList.add("guide-target");
    $("guide").querySelector(".guide-count").textContent = "Hint " + (i + 1) + " of " + all.length;
    $("guide-next").textContent = i === all.length - 1 ? "Done" : "Next";
  }

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
    "guide-next": function () { if (index >= hints().length - 1) close(); else show(index + 1); },
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

  document.addEventListener("DOMContentLoaded", function () {
    var guide = $("guide");
    if (!guide) return;
    if (document.querySelector(".present")) return; // not on the projector
    if (guide.getAttribute("data-force") === "1" || !remembered()) open();
  });
})();
