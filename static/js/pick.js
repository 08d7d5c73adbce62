/* The cumulative-range pick: move the marker from 0 to r, then light the range it lands in.
   The server renders the end state; this only animates the way there. Under
   prefers-reduced-motion the end state is shown at once. Tests wait for data-state="done". */
(function () {
  "use strict";

  var DURATION_MS = 1200;

  function reducedMotion() {
    return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  function animate(bar) {
    var marker = bar.querySelector(".marker");
    var r = parseFloat(bar.getAttribute("data-r"));
    if (!marker || isNaN(r) || reducedMotion()) {
      bar.setAttribute("data-state", "done");
      return;
    }
    bar.setAttribute("data-state", "moving");
    var start = null;
    function frame(now) {
      if (start === null) start = now;
      var k = Math.min(1, (now - start) / DURATION_MS);
      var eased = 1 - Math.pow(1 - k, 3);
      marker.setAttribute("x", (100 * r * eased).toFixed(3) + "%"); // the bar spans 0% to 100%
      if (k < 1) {
        window.requestAnimationFrame(frame);
      } else {
        bar.setAttribute("data-state", "done");
        document.dispatchEvent(new CustomEvent("pick:done", { detail: { r: r } }));
      }
    }
    window.requestAnimationFrame(frame);
  }

  function animateReady() {
    document.querySelectorAll('.range-bar[data-state="ready"]').forEach(animate);
  }

  document.addEventListener("DOMContentLoaded", animateReady);
  document.addEventListener("htmx:afterSettle", animateReady);
})();
