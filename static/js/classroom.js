/* Classroom controls: keyboard shortcuts, auto-play, the help dialog and "Copy link".
   Everything here drives the page's own buttons, so htmx and the server do the work.
   Listeners are bound once, on the document: htmx replaces the panels, never the document.
   Controls are found by id or by their data-control attribute, never by their text; the words this
   script shows come translated from the template, in data-label-* attributes. */
(function () {
  "use strict";

  var playing = false;
  var timer = null;

  function $(id) { return document.getElementById(id); }

  function press(control) {
    var button = document.querySelector('[data-control="' + control + '"]');
    if (button) button.click();
  }

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  function setPlaying(on) {
    playing = on;
    window.clearTimeout(timer);
    var play = $("play");
    if (play) {
      play.setAttribute("aria-pressed", on ? "true" : "false");
      play.textContent = play.getAttribute(on ? "data-label-pause" : "data-label-play");
    }
    if (on) step();
  }

  function atLimit() {
    var limit = $("at-limit");
    return limit && limit.value === "1";
  }

  function step() {
    if (atLimit()) { setPlaying(false); return; }
    press("step");
  }

  function nextWhenPicked() {
    if (!playing) return;
    var bar = $("range-bar");
    if (bar && bar.getAttribute("data-state") !== "done") return; // pick:done will call again
    window.clearTimeout(timer);
    timer = window.setTimeout(function () { if (playing) step(); }, parseInt($("speed").value, 10) || 1500);
  }

  function nudgeTemperature(direction) {
    var slider = $("temperature");
    if (!slider) return;
    if (direction > 0) slider.stepUp(); else slider.stepDown();
    slider.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function openHelp() {
    var help = $("help");
    if (help && !help.open) help.showModal();
  }

  var keys = {
    " ": step, "ArrowRight": step,
    "ArrowLeft": function () { press("back"); },
    "p": function () { setPlaying(!playing); },
    "ArrowUp": function () { nudgeTemperature(1); },
    "ArrowDown": function () { nudgeTemperature(-1); },
    "r": function () { press("reset"); },
    "?": openHelp
  };

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    var help = $("help");
    if (help && help.open) return; // the dialog handles its own keys (Escape closes it)
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (key === "?" || event.key === "?") key = "?";
    var wasPlaying = playing;
    if (wasPlaying && key !== "p") setPlaying(false); // any key pauses auto-play
    var action = keys[key];
    if (!action) return;
    if (event.target && event.target.tagName === "BUTTON" && (key === " ")) return; // Space presses a focused button
    event.preventDefault();
    if (key === "p" || !wasPlaying) action();
  });

  function copyLink() {
    var field = $("share-link");
    var status = $("copy-status");
    var done = function () { if (status) status.textContent = status.getAttribute("data-label-copied"); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () { field.select(); });
    } else {
      field.select();
      document.execCommand("copy");
      done();
    }
  }

  var clicks = {
    "play": function () { setPlaying(!playing); },
    "help-open": openHelp,
    "copy-link": copyLink
  };

  document.addEventListener("click", function (event) {
    var target = event.target.closest && event.target.closest("#play, #help-open, #copy-link");
    if (target) clicks[target.id]();
  });

  // − and + beside the temperature submit the form with the temperature one step away, which works without
  // JavaScript. Here they move the slider a step instead, which sends it as dragging it does.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("#controls button[data-nudge]");
    if (!button) return;
    event.preventDefault();
    nudgeTemperature(parseInt(button.getAttribute("data-nudge"), 10));
  });

  // "choose" in the logits table submits the controls form to /choose (its formaction), which works
  // without JavaScript. Here htmx sends that request instead, as it does for Step, and swaps the
  // panels in place: one listener for every row, rather than an hx-get on each button of each Step.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("#logits button[name=token][formaction]");
    if (!button || !window.htmx) return;
    event.preventDefault();
    window.htmx.ajax("GET", button.getAttribute("formaction"), { source: button });
  });

  // What needs JavaScript is hidden in the HTML; show it, on the page and in each swapped panel.
  function showNeedsJs() {
    document.querySelectorAll(".needs-js[hidden]").forEach(function (el) { el.hidden = false; });
  }

  // A fold (a worked example, the chart's numbers) arrives folded with a link to its body for this
  // state (webapp/web/stages/folds.py): opening it fetches the body in place of the link.
  function fetchFold(fold) {
    var link = fold.querySelector(":scope > .fold-link");
    if (link && window.htmx) window.htmx.ajax("GET", link.getAttribute("href"), { target: link, swap: "outerHTML" });
  }

  // Folds stay open across steps: the panels are replaced, so reopen what was open (and fetch its body).
  var openWorked = {};
  document.addEventListener("toggle", function (event) {
    var el = event.target;
    if (!(el.hasAttribute && el.hasAttribute("data-fold") && el.id)) return;
    openWorked[el.id] = el.open;
    if (el.open) fetchFold(el);
  }, true);

  function reopenWorked() {
    Object.keys(openWorked).forEach(function (id) {
      var el = $(id);
      if (el && openWorked[id] && !el.open) el.open = true;
    });
  }

  // Where the text and chips scroll (presenter mode), keep the newest token in view.
  function showNewest() {
    document.querySelectorAll(".chips, .text-so-far").forEach(function (el) {
      if (el.scrollHeight > el.clientHeight) el.scrollTop = el.scrollHeight;
    });
  }

  document.addEventListener("DOMContentLoaded", function () { showNeedsJs(); showNewest(); });
  document.addEventListener("htmx:afterSettle", function () { showNeedsJs(); reopenWorked(); showNewest(); nextWhenPicked(); });
  document.addEventListener("pick:done", nextWhenPicked);
  document.addEventListener("htmx:responseError", function () { setPlaying(false); });
  // What was pressed stays where it was on the screen: an answer that grows a panel above the one pressed
  // in (the forward pass opening, chips wrapping onto a new line) does not carry the page away from it.
  // Pressed outside the panels (the phone's step bar, fixed at the bottom), the page stays as it was read:
  // the first panel whose top is on screen keeps its place (the one above it may grow at its end).
  var pressedIn = null;
  function firstOnScreen() {
    var panels = document.querySelectorAll(".panel[id]"), partly = null;
    for (var i = 0; i < panels.length; i++) {
      var box = panels[i].getBoundingClientRect();
      if (box.top >= 0 && box.top < window.innerHeight) return panels[i];
      if (!partly && box.bottom > 0) partly = panels[i];
    }
    return partly;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    var panel = (elt && elt.closest && elt.closest(".panel[id]")) || firstOnScreen();
    pressedIn = panel ? { id: panel.id, top: panel.getBoundingClientRect().top } : null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    var was = pressedIn;
    pressedIn = null;
    var panel = was && $(was.id);
    if (!panel) return;
    var moved = panel.getBoundingClientRect().top - was.top;
    if (Math.abs(moved) > 1) window.scrollBy(0, moved);
  });
  // A refusal is said at the top of the page; a button pressed further down (Start a class room, in
  // the Share panel) must not seem to do nothing: bring the sentence into view.
  document.addEventListener("htmx:afterSwap", function (event) {
    var region = event.detail.target;
    if (!region || region.id !== "error" || !region.textContent.trim()) return;
    pressedIn = null; // the refusal is what to read now, not the panel pressed in
    var box = region.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) region.scrollIntoView({ block: "start" });
  });
  // The browser's history: an answer whose X-History-Entry is the screen's own (state.py, history_entry)
  // only changed a setting, and replaces the current entry instead of adding one.
  document.addEventListener("htmx:beforeHistoryUpdate", function (event) {
    var xhr = event.detail.xhr;
    var fields = $("state-fields");
    var entry = xhr && xhr.getResponseHeader("X-History-Entry");
    if (entry !== null && fields && fields.getAttribute("data-history-entry") === entry) {
      event.detail.history.type = "replace";
    }
  });

  // A setting the server refused leaves the screen as it was, so its field goes back to the value
  // in use; a setting it accepted becomes the value to go back to.
  function settingFields() {
    return document.querySelectorAll("#controls input:not([type=hidden]), #controls select");
  }

  function commitSettings() {
    settingFields().forEach(function (el) {
      if (el.type === "checkbox") el.defaultChecked = el.checked;
      else if (el.tagName === "SELECT") Array.prototype.forEach.call(el.options, function (o) { o.defaultSelected = o.selected; });
      else el.defaultValue = el.value;
    });
  }

  function restoreSetting(el) {
    if (!el || !el.matches || !el.matches("#controls input:not([type=hidden]), #controls select")) return;
    if (el.type === "checkbox") el.checked = el.defaultChecked;
    else if (el.tagName === "SELECT") Array.prototype.forEach.call(el.options, function (o) { o.selected = o.defaultSelected; });
    else el.value = el.defaultValue;
  }

  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr) return;
    if (xhr.status >= 400) { setPlaying(false); restoreSetting(event.detail.elt); }
    else if (xhr.status < 300) commitSettings();
  });
})();
