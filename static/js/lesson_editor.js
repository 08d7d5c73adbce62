/* The lesson editor (/lessons/edit): the lesson this browser is writing, kept in its localStorage until it is
   saved as a file or published. The server reads files (POST /lessons/read answers the lesson as the app reads
   it, or a 400 that says why not) and keeps the published ones (POST /lessons/open); the rest happens here.
   What a person wrote goes into the page as text (textContent, an input's value), never as markup. The words this
   script shows come translated from the template, in data-label-* attributes. */
(function () {
  "use strict";

  var KEY = "token-by-token:lesson";
  var root = null;
  var lesson = null;

  function $(id) { return document.getElementById(id); }

  /* A label with its {placeholders} filled in one pass: a title that holds "{n}" stays as it is. */
  function label(name, values) {
    var text = root.getAttribute("data-label-" + name) || "";
    return text.replace(/\{(\w+)\}/g, function (whole, key) {
      return values && Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : whole;
    });
  }

  function isObject(value) { return value !== null && typeof value === "object" && !Array.isArray(value); }
  function text(value) { return typeof value === "string" ? value : value === null || value === undefined ? "" : String(value); }

  /* ---- The lesson: {title, lang, about, screens: [{title, state: [[key, value]], question, vote, notes}]} ---- */

  function blank() {
    return { title: label("untitled"), lang: root.getAttribute("data-lang") || "", about: "", screens: [] };
  }

  /* A state's keys in their order: the file's object, or the pairs this script keeps. */
  function statePairs(state) {
    if (Array.isArray(state)) {
      return state.filter(function (pair) { return Array.isArray(pair) && pair.length === 2; })
        .map(function (pair) { return [text(pair[0]), text(pair[1])]; });
    }
    return isObject(state) ? Object.keys(state).map(function (key) { return [key, text(state[key])]; }) : [];
  }

  /* The lesson as the server read it (or as this browser kept it); whatever is not a lesson's is left out. */
  function lessonFrom(raw) {
    if (!isObject(raw)) return blank();
    var screens = Array.isArray(raw.screens) ? raw.screens.filter(isObject) : [];
    return {
      title: text(raw.title),
      lang: text(raw.lang),
      about: text(raw.about),
      screens: screens.map(function (screen) {
        return { title: text(screen.title), state: statePairs(screen.state), question: text(screen.question),
                 vote: screen.vote === true, notes: text(screen.notes) };
      }),
    };
  }

  function load() {
    var raw = null;
    try { raw = JSON.parse(window.localStorage.getItem(KEY) || "null"); } catch (e) { raw = null; }
    lesson = raw ? lessonFrom(raw) : blank();
  }

  function save() {
    try {
      window.localStorage.setItem(KEY, JSON.stringify(lesson));
    } catch (e) {
      say(label("no-storage"));
    }
  }

  /* ---- The file: the text webapp/lessons/lesson.py's dumps writes (its keys in order, two spaces a level) ---- */

  function Pairs(pairs) { this.pairs = pairs; }

  function json(value, indent) {
    var inner = indent + "  ";
    if (value instanceof Pairs || Array.isArray(value)) {
      var items = value instanceof Pairs
        ? value.pairs.map(function (pair) { return inner + JSON.stringify(pair[0]) + ": " + json(pair[1], inner); })
        : value.map(function (item) { return inner + json(item, inner); });
      var ends = value instanceof Pairs ? "{}" : "[]";
      return items.length ? ends[0] + "\n" + items.join(",\n") + "\n" + indent + ends[1] : ends;
    }
    return JSON.stringify(value);
  }

  function fileText() {
    var screens = lesson.screens.map(function (s) {
      return new Pairs([["title", s.title], ["state", new Pairs(s.state)], ["question", s.question], ["vote", s.vote],
                        ["notes", s.notes]]);
    });
    return json(new Pairs([
      ["format", root.getAttribute("data-format")],
      ["version", parseInt(root.getAttribute("data-version"), 10)],
      ["title", lesson.title],
      ["lang", lesson.lang],
      ["about", lesson.about],
      ["screens", screens],
    ]), "") + "\n";
  }

  /* The server reads a file (field "file") or a text (field "text"): {text, name} of the lesson as it reads it.
     Refused, or not reached: an Error whose message says why, in the page's language. */
  function read(field, value) {
    var form = new FormData();
    form.append(field, value);
    var asked = { method: "POST", body: form, credentials: "same-origin", headers: { Accept: "application/json" } };
    return fetch(root.getAttribute("data-read-url"), asked).then(answered, unreached);
  }

  function answered(response) {
    return response.text().then(function (body) {
      if (response.ok) return { text: body, name: fileName(response.headers.get("Content-Disposition")) };
      throw refusal(refusalMessage(body));
    });
  }

  function unreached() { throw refusal(label("unreachable")); }

  function refusal(message) {
    var error = new Error(message);
    error.refusal = true;
    return error;
  }

  function refusalMessage(body) {
    try {
      var message = JSON.parse(body).error;
      if (typeof message === "string" && message) return message;
    } catch (e) { /* not the app's answer: a proxy's page */ }
    return label("unreachable");
  }

  /* 'attachment; filename="lesson.json"; filename*=UTF-8''%E6%B8%A9.lesson.json' -> '温.lesson.json' */
  function fileName(disposition) {
    var utf8 = /filename\*=UTF-8''([^;]+)/i.exec(disposition || "");
    if (utf8) {
      try { return decodeURIComponent(utf8[1]); } catch (e) { /* fall back to the plain name */ }
    }
    var plain = /filename="([^"]+)"/i.exec(disposition || "");
    return plain ? plain[1] : "lesson.json";
  }

  function download(body, name) {
    var url = URL.createObjectURL(new Blob([body], { type: "application/json" }));
    var link = document.createElement("a");
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    window.setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
  }

  /* ---- What the page says ---- */

  function say(message, back, show) {
    $("status-text").textContent = message;
    var link = $("status-back");
    link.hidden = !back;
    if (back) link.href = back; else link.removeAttribute("href");
    if (show) $("editor-status").scrollIntoView({ block: "nearest" });
  }

  function refuse(lead, error) {
    if (!error.refusal) throw error;
    var region = $("error");
    var line = document.createElement("p");
    var strong = document.createElement("strong");
    line.className = "error-message";
    strong.textContent = label(lead);
    line.appendChild(strong);
    line.appendChild(document.createTextNode(" " + error.message));
    region.replaceChildren(line);
    region.scrollIntoView({ block: "nearest" });  // a file dropped low on the page: the reason is at its top
  }

  function clearRefusal() { $("error").replaceChildren(); }

  /* A question in the page's dialog; resolves true if the person chose `yes` (Cancel and Escape: false). */
  function ask(question, yes) {
    var dialog = $("ask");
    $("ask-text").textContent = question;
    $("ask-yes").textContent = yes;
    return new Promise(function (resolve) {
      dialog.addEventListener("close", function closed() {
        dialog.removeEventListener("close", closed);
        resolve(dialog.returnValue === "yes");
      });
      dialog.returnValue = "";
      dialog.showModal();
      $("ask-no").focus();
    });
  }

  function titleOf(thing, n) { return thing.title || (n ? label("screen", { n: n }) : label("untitled")); }

  /* ---- The screens on the page ---- */

  function value(state, key) {
    for (var i = 0; i < state.length; i++) if (state[i][0] === key) return state[i][1];
    return null;
  }

  function shortened(words, length) { return words.length > length ? words.slice(0, length - 1) + "…" : words; }

  function screenUrl(state) {
    var query = new URLSearchParams(state.filter(function (pair) { return pair[0] !== "lang"; }));
    var lang = root.getAttribute("data-lang-param");
    if (lang) query.append("lang", lang);
    return root.getAttribute("data-screen-url") + "?" + query.toString();  // redirects to its public address
  }

  function summary(state) {
    var prompt = value(state, "prompt");
    var ids = (value(state, "ids") || "").split(",").filter(function (id) { return id.trim() !== ""; });
    return {
      model: value(state, "model") || root.getAttribute("data-default-model"),
      prompt: value(state, "model") === "article" ? label("no-text")
        : prompt ? "“" + shortened(prompt, 60) + "”" : label("empty-prompt"),
      temperature: value(state, "temperature") || "1.0",
      generated: String(ids.length),
    };
  }

  function screenItem(screen, i) {
    var item = $("screen-template").content.firstElementChild.cloneNode(true);
    var n = i + 1;
    var heading = item.querySelector("[data-number]");
    heading.id = "screen-" + n + "-heading";
    heading.textContent = label("screen", { n: n });
    item.setAttribute("aria-labelledby", heading.id);
    item.setAttribute("data-index", String(i));
    item.querySelector("[data-open]").href = screenUrl(screen.state);
    var facts = summary(screen.state);
    item.querySelectorAll("[data-summary]").forEach(function (cell) {
      cell.textContent = facts[cell.getAttribute("data-summary")];
    });
    item.querySelector('[data-field="title"]').value = screen.title;
    item.querySelector('[data-field="question"]').value = screen.question;
    item.querySelector('[data-field="vote"]').checked = screen.vote;
    item.querySelector('[data-field="notes"]').value = screen.notes;
    item.querySelectorAll("[data-action]").forEach(function (button) {
      button.setAttribute("aria-describedby", heading.id);
    });
    item.querySelector('[data-action="up"]').disabled = i === 0;
    item.querySelector('[data-action="down"]').disabled = i === lesson.screens.length - 1;
    return item;
  }

  function render() {
    $("lesson-title").value = lesson.title;
    $("lesson-about").value = lesson.about;
    var n = lesson.screens.length;
    $("screen-list").replaceChildren.apply($("screen-list"), lesson.screens.map(screenItem));
    $("screen-count").textContent = n ? "(" + n + ")" : "";
    $("no-screens").hidden = n > 0;
    $("more-screens").hidden = n === 0;
  }

  /* Focus the button `action` of screen i (or, once it is disabled there, the screen's other move). */
  function focusScreen(i, action) {
    var item = $("screen-list").children[i];
    if (!item) { $("screens-heading").focus(); return; }
    var button = item.querySelector('[data-action="' + action + '"]');
    if (!button || button.disabled) button = item.querySelector('[data-action="' + (action === "up" ? "down" : "up") + '"]');
    if (!button || button.disabled) button = item.querySelector('[data-field="title"]');
    button.focus();
  }

  function screenIndex(element) {
    var item = element.closest("[data-index]");
    return item ? parseInt(item.getAttribute("data-index"), 10) : -1;
  }

  function edited(event) {
    var field = event.target.getAttribute("data-field");
    var i = screenIndex(event.target);
    if (!field || i < 0) return;
    lesson.screens[i][field] = field === "vote" ? event.target.checked : event.target.value;
    save();
  }

  function move(i, by) {
    var j = i + by;
    if (j < 0 || j >= lesson.screens.length) return;
    var screen = lesson.screens.splice(i, 1)[0];
    lesson.screens.splice(j, 0, screen);
    save();
    render();
    focusScreen(j, by < 0 ? "up" : "down");
  }

  function remove(i) {
    var screen = lesson.screens[i];
    ask(label("ask-delete", { n: i + 1, title: titleOf(screen, i + 1) }), label("yes-delete")).then(function (yes) {
      if (!yes) { focusScreen(i, "delete"); return; }
      lesson.screens.splice(i, 1);
      save();
      render();
      say(label("deleted", { n: i + 1 }));
      focusScreen(Math.min(i, lesson.screens.length - 1), "delete");
    });
  }

  function clicked(event) {
    var button = event.target.closest("[data-action]");
    if (!button) return;
    var i = screenIndex(button);
    var action = button.getAttribute("data-action");
    if (action === "up") move(i, -1);
    else if (action === "down") move(i, 1);
    else if (action === "delete") remove(i);
  }

  /* ---- A screen from the stepper, a file, a copy of a published lesson ---- */

  function addSent() {
    var sent = root.getAttribute("data-add");
    if (!sent) return;
    var state = statePairs(JSON.parse(sent));
    var max = parseInt(root.getAttribute("data-max-screens"), 10);
    if (lesson.screens.length >= max) {
      refuse("not-added", refusal(label("full", { max: max })));
      return;
    }
    var predicting = value(state, "predict") === "1" && value(state, "reveal") !== "1";
    var n = lesson.screens.length + 1;
    lesson.screens.push({ title: root.getAttribute("data-add-title") || label("screen", { n: n }), state: state,
                          question: "", vote: predicting, notes: "" });
    save();
    say(label("added", { n: n, title: titleOf(lesson) }), root.getAttribute("data-add-url"));
  }

  /* Replace the lesson being written with `next`, asking first if it has screens; resolves whether it did. */
  function replaceWith(next) {
    var asking = lesson.screens.length
      ? ask(label("ask-replace", { title: titleOf(lesson), other: titleOf(next) }), label("yes-replace"))
      : Promise.resolve(true);
    return asking.then(function (yes) {
      if (!yes) return false;
      lesson = next;
      save();
      render();
      return true;
    });
  }

  function openFile(file) {
    clearRefusal();
    var max = parseInt(root.getAttribute("data-max-bytes"), 10);
    if (file.size > max) {
      refuse("not-opened", refusal(label("too-big", { size: Math.floor(file.size / 1000), max: Math.floor(max / 1000) })));
      return;
    }
    read("file", file).then(function (answer) {
      var next = lessonFrom(JSON.parse(answer.text));
      return replaceWith(next).then(function (done) {
        if (done) say(label("opened", { title: titleOf(next) }), null, true);
      });
    }).catch(function (error) { refuse("not-opened", error); });
  }

  function copyFrom(address) {
    forget(["from"]);
    fetch(address, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(answered, unreached)
      .then(function (answer) { return read("text", answer.text); })
      .then(function (answer) {
        var next = lessonFrom(JSON.parse(answer.text));
        return replaceWith(next).then(function (done) {
          if (done) say(label("copied", { title: titleOf(next) }), null, true);
        });
      })
      .catch(function (error) { refuse("not-opened", error); });
  }

  /* Take names out of the address, so that a reload does not add the screen (or offer the copy) again. */
  function forget(names) {
    var url = new URL(window.location.href);
    names.forEach(function (name) { url.searchParams.delete(name); });
    window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
  }

  /* ---- The lesson's buttons ---- */

  /* The lesson's file as the server reads it: the text to save or publish. */
  function checked() {
    clearRefusal();
    if (!lesson.screens.length) return Promise.reject(refusal(label("no-screens")));
    return read("text", fileText());
  }

  function saveFile() {
    checked().then(function (answer) {
      download(answer.text, answer.name);
      say(label("saved", { name: answer.name }));
    }).catch(function (error) { refuse("not-saved", error); });
  }

  function publish(event) {
    event.preventDefault();
    var form = event.target;
    checked().then(function (answer) {
      form.elements.text.value = answer.text;
      form.submit();
    }).catch(function (error) { refuse("not-published", error); });
  }

  function newLesson() {
    var asking = lesson.screens.length || lesson.about
      ? ask(label("ask-new", { title: titleOf(lesson) }), label("yes-new"))
      : Promise.resolve(true);
    asking.then(function (yes) {
      if (!yes) return;
      lesson = blank();
      save();
      render();
      clearRefusal();
      say(label("started"));
      $("lesson-title").focus();
    });
  }

  /* A file dropped anywhere on the page opens, as "Open a file" does. */
  function dropping() {
    var zone = $("drop-zone");
    var depth = 0;
    function files(event) {
      var types = event.dataTransfer && event.dataTransfer.types;
      return types && Array.prototype.indexOf.call(types, "Files") >= 0;
    }
    document.addEventListener("dragenter", function (event) {
      if (!files(event)) return;
      event.preventDefault();
      depth += 1;
      zone.hidden = false;
    });
    document.addEventListener("dragover", function (event) {
      if (!files(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
    });
    document.addEventListener("dragleave", function (event) {
      if (!files(event)) return;
      depth = Math.max(0, depth - 1);
      if (!depth) zone.hidden = true;
    });
    document.addEventListener("drop", function (event) {
      if (!files(event)) return;
      event.preventDefault();
      depth = 0;
      zone.hidden = true;
      if (event.dataTransfer.files.length) openFile(event.dataTransfer.files[0]);
    });
  }

  function listen() {
    document.querySelectorAll("[data-lesson]").forEach(function (field) {
      field.addEventListener("input", function () {
        lesson[field.getAttribute("data-lesson")] = field.value;
        save();
      });
    });
    var list = $("screen-list");
    list.addEventListener("input", edited);
    list.addEventListener("change", edited);
    list.addEventListener("click", clicked);
    $("save-file").addEventListener("click", saveFile);
    $("open-file").addEventListener("click", function () { $("open-file-input").click(); });
    $("open-file-input").addEventListener("change", function (event) {
      var file = event.target.files[0];
      event.target.value = "";
      if (file) openFile(file);
    });
    $("publish").addEventListener("submit", publish);
    $("new-lesson").addEventListener("click", newLesson);
    window.addEventListener("storage", function (event) {  // another tab of this browser changed the lesson
      if (event.key !== KEY) return;
      load();
      render();
    });
    dropping();
  }

  document.addEventListener("DOMContentLoaded", function () {
    root = $("lesson-editor");
    if (!root) return;
    $("editor").hidden = false;
    $("screens-panel").hidden = false;
    load();
    addSent();
    forget(["add", "step"]);
    render();
    listen();
    var from = root.getAttribute("data-from");
    if (from) copyFrom(from);
  });
})();
