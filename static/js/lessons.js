/* Lessons played alone: PageUp / PageDown (what a presentation clicker sends) go to the previous / next screen
   (the decoding page's tree: to its previous / next step); "Print the worksheet" prints. Everything here also
   works without JavaScript, by its links. */
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) return;
    var link = document.querySelector('[data-lesson-key="' + event.key + '"]');
    if (!link) return;
    event.preventDefault();
    link.click();
  });
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-print]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () { window.print(); });
    });
  });
})();
