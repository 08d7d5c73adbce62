/* The vocabulary page's "Back to the stepper" goes back to the very screen the student came from
   (its prompt, settings and steps), not to a fresh one. The screen is the stepper page that linked
   here; it is remembered for this tab, so searching (a new page without JavaScript's help) keeps it.
   Without JavaScript the link opens the stepper with this model. */
(function () {
  "use strict";

  var KEY = "token-by-token:stepper-screen";

  function start() {
    var back = document.querySelector("a[data-back-to-stepper]");
    if (!back) return;
    var stepper = new URL(back.href, window.location.href);
    try {
      if (document.referrer) {
        var from = new URL(document.referrer);
        if (from.origin === window.location.origin && from.pathname === stepper.pathname) {
          window.sessionStorage.setItem(KEY, from.pathname + from.search);
        }
      }
      var screen = window.sessionStorage.getItem(KEY);
      if (screen && screen.charAt(0) === "/" && screen.charAt(1) !== "/") back.href = screen;
    } catch (e) { /* storage off or a malformed referrer: keep the plain link */ }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
