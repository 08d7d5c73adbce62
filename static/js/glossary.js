/* The glossary's definitions (a .term's .term-def, shown by CSS on hover, focus and tap): one that would pass
   the window's right edge opens towards the left instead, one that would pass its bottom opens above the word,
   and Escape closes the one that has the focus. */
(function () {
  "use strict";

  function place(term) {
    var definition = term.querySelector(".term-def");
    if (!definition || window.innerWidth <= 700) return; // on a phone it is a card along the bottom (app.css)
    definition.classList.remove("flip", "above");
    var box = definition.getBoundingClientRect();
    if (box.right > document.documentElement.clientWidth - 8) definition.classList.add("flip");
    if (box.bottom > window.innerHeight - 8 && box.top - term.getBoundingClientRect().height > box.height + 16) {
      definition.classList.add("above");
    }
  }

  function termOf(event) { return event.target.closest && event.target.closest(".term"); }

  document.addEventListener("mouseover", function (event) { var t = termOf(event); if (t) place(t); });
  document.addEventListener("focusin", function (event) { var t = termOf(event); if (t) place(t); });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && document.activeElement && document.activeElement.classList.contains("term")) {
      document.activeElement.blur();
    }
  });
})();
