/* The class room. On the teacher's page, each change of the screen is sent to the room (and the
   address stays on the room's page); on a student's page, the screen follows the teacher's by
   polling a conditional request (304 while nothing changed) every 0.4 to 0.8 s, stopping when the
   lesson has ended (the teacher ended it, or the room expired), and asking less and less often while
   the server refuses (a 429, or the room's store not answering: a 503), with the server's message
   shown meanwhile; on the ordinary stepper, a student who left the room's screen gets a "Follow the
   teacher" link back.
   While the server cannot be reached (no answer, a gateway's 502 or 504, the store's 503), both pages say
   so at the top of the screen (room/_connection.html) until it answers again: a student's vote that did
   not arrive is said where the vote is, with a button that sends it again; the teacher's last change
   that did not arrive is sent again by itself. The words shown here come translated from the templates,
   in data-label-* attributes. */
(function () {
  "use strict";

  var POLL_MS = 600;
  var JITTER_MS = 200;
  var HIDDEN_POLL_MS = 3000; // a phone in a pocket asks less often
  var ME_DELAY_MS = 2000; // the student's record after a reveal: spread over two seconds
  var MAX_BACKOFF_MS = 8000; // a server that refuses (429) or fails is asked half as often each time, down to this (unless Retry-After asks for less)
  // A server that does not answer at all (restarting, or a gateway's 502/504 in front of it) is asked again
  // every 1 to 1.5 s (the jitter), however long it is away, so that a class sees the teacher's screen again
  // within 1.5 s of its coming back rather than after a back-off of up to 12 s. Meanwhile 1,000 phones ask
  // about 800 times a second: a refused connection or a gateway's ready-made 502 each, which cost a kernel
  // or a proxy next to nothing; a server that answers and refuses (429, the store's 503) says itself how
  // long to wait, and is asked less and less often as before.
  var UNREACHED_MAX_MS = 1000;

  function main() { return document.getElementById("main"); }

  // No answer at all (status 0), or a gateway's: the server is not there, rather than refusing.
  function unreached(status) { return status === 0 || status === 502 || status === 503 || status === 504; }

  // The line at the top of the screen that says the server is not answering; set only when it changes, so
  // that a screen reader says it once.
  function sayConnection(lost) {
    var line = document.getElementById("connection");
    var text = lost && line ? line.getAttribute("data-label-lost") : "";
    if (line && line.textContent !== text) line.textContent = text;
  }

  function valuesOf(formData) {
    var values = {};
    if (formData) formData.forEach(function (value, name) { values[name] = value; });
    return values;
  }

  // A gateway's page (a 502, 503 or 504 the app did not write: the app's own say where they go, HX-Retarget)
  // is not the fragment asked for: swapped in, it would replace the counts line, and its polling with it.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && unreached(xhr.status) && !xhr.getResponseHeader("HX-Retarget")) event.detail.shouldSwap = false;
  });

  // The teacher: publish the stepper URL htmx would push, and keep the room page's address.
  document.addEventListener("htmx:beforeHistoryUpdate", function (event) {
    var m = main();
    if (!m || m.dataset.roomRole !== "teacher") return;
    var history = event.detail.history;
    var requested = (event.detail.pathInfo && event.detail.pathInfo.requestPath) || "/";
    var action = requested.split("?")[0].replace(/^\//, "") || "show";
    var url = history.path;
    history.type = "replace";
    history.path = window.location.pathname + window.location.search;
    // The page's own flags go too: the panel that comes back keeps presenter mode and the join screen.
    var page = new URLSearchParams(window.location.search);
    publish(m, { url: url, action: action, present: page.get("present") || "", join: page.get("join") || "" });
  });

  // htmx sends one publish at a time from the page, the latest waiting: the last to come back is the newest.
  function publish(m, values) {
    htmx.ajax("POST", m.dataset.roomPublish, { source: m, swap: "none", values: values });
  }

  // The teacher: a change that did not arrive waits (the latest only: each names the whole screen) until the
  // room answers again, the counts line's next poll, and is then sent by itself; meanwhile the top of the
  // screen says the class does not see it. A refusal (a 4xx) is said in #error as before, and not sent again.
  // The store's "not answering" (a 503's sentence, in #error) goes too when the room answers again.
  var unsentScreen = null;
  var storeNote = null;
  function teacherHeard(detail, status) {
    var m = main();
    if (!m || m.dataset.roomRole !== "teacher") return;
    var path = detail.pathInfo.requestPath;
    var lost = unreached(status);
    var region = document.getElementById("error");
    if (status === 503 && region && region.firstElementChild) storeNote = region.firstElementChild;
    else if (!lost && storeNote && /^\/room\//.test(path)) {
      storeNote.remove();
      storeNote = null;
    }
    if (path === m.dataset.roomPublish) {
      unsentScreen = lost ? valuesOf(detail.requestConfig.formData) : null;
      sayConnection(lost);
    } else if (/^\/room\/[A-Z0-9]+\/live$/.test(path) && !lost && unsentScreen) {
      var values = unsentScreen;
      unsentScreen = null; // set again if it does not arrive this time either
      publish(m, values);
    } else if (lost || (!unsentScreen && /^\/room\//.test(path))) {
      sayConnection(lost); // a Step that found no server; the room's counts, answered
    }
  }

  // A student: a vote that did not arrive is said under the line that says the vote (which stays as the
  // server last counted it, and the ballot marks that one), with a button that sends the same vote again.
  var VOTE_PATH = /^\/room\/[A-Z0-9]+\/vote$/;
  var unsentVote = null;

  function sayVoteLost(path, values, xhr) {
    var labels = document.getElementById("connection");
    var line = document.getElementById("my-vote");
    if (!labels || !line) return;
    unsentVote = { path: path, values: values };
    var lost = document.getElementById("vote-lost") || document.createElement("p");
    lost.id = "vote-lost";
    lost.className = "vote-lost";
    lost.setAttribute("role", "alert");
    var again = document.createElement("button");
    again.type = "button";
    again.id = "vote-again";
    again.textContent = labels.getAttribute("data-label-send-again");
    var busy = xhr.status === 503 && xhr.getResponseHeader("Retry-After"); // the app's: its store, not the network
    lost.replaceChildren(labels.getAttribute(busy ? "data-label-vote-unanswered" : "data-label-vote-unreached") + " ", again);
    line.after(lost);
  }

  function forgetVote() {
    unsentVote = null;
    var lost = document.getElementById("vote-lost");
    if (lost) lost.remove();
  }

  function voteHeard(detail, status) {
    var path = detail.pathInfo.requestPath;
    if (!VOTE_PATH.test(path)) return;
    if (unreached(status)) sayVoteLost(path, valuesOf(detail.requestConfig.formData), detail.xhr);
    else forgetVote(); // counted, or refused by the app itself (said in #error, as before)
  }

  // Each request's outcome: its status, or 0 when no answer came (not when htmx dropped it for a newer one
  // of the same control, an abort, which also ends with status 0 on htmx:afterRequest).
  function heard(detail, status) {
    if (!detail.xhr || !detail.pathInfo) return;
    teacherHeard(detail, status);
    voteHeard(detail, status);
  }
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.xhr && event.detail.xhr.status) heard(event.detail, event.detail.xhr.status);
  });
  document.addEventListener("htmx:sendError", function (event) { heard(event.detail, 0); });

  document.addEventListener("click", function (event) {
    var again = event.target.closest && event.target.closest("#vote-again");
    if (!again || !unsentVote) return;
    again.disabled = true;
    htmx.ajax("POST", unsentVote.path, {
      source: document.getElementById("my-vote"), target: "#my-vote", swap: "outerHTML", values: unsentVote.values });
  });

  // The teacher: put the join screen away ("Start the lesson") or bring it back ("Show how to join") without a
  // reload. The address keeps join=1 while it is up, as the links do without JavaScript, and so do the links and
  // the settings form that keep it (the presenter-mode link, the form's join field).
  function setJoinParam(href, shown) {
    var url = new URL(href, window.location.href);
    if (shown) url.searchParams.set("join", "1");
    else url.searchParams.delete("join");
    return url.pathname + url.search;
  }

  function showJoin(panel, shown) {
    panel.classList.toggle("joining", shown);
    window.history.replaceState(window.history.state, "", setJoinParam(window.location.href, shown));
    var presenter = document.getElementById("presenter-link");
    if (presenter) presenter.setAttribute("href", setJoinParam(presenter.getAttribute("href"), shown));
    panel.querySelectorAll('.room-settings input[name="join"]').forEach(function (input) {
      input.value = shown ? "1" : "0";
    });
    var next = shown ? document.getElementById("join-hide") : document.querySelector('#controls [data-control="step"]');
    if (next) next.focus();
  }

  document.addEventListener("click", function (event) {
    var m = main();
    var link = event.target.closest && event.target.closest("#join-hide, #join-show");
    if (!m || m.dataset.roomRole !== "teacher" || !link) return;
    var panel = document.getElementById("room-panel");
    if (!panel) return;
    event.preventDefault();
    showJoin(panel, link.id === "join-show");
  });

  // The same round still open: the student's ballot (their choice marked, a word being typed) stays as it is.
  function withoutBallot(html) {
    var parsed = document.createElement("template");
    parsed.innerHTML = html;
    var ballot = parsed.content.getElementById("ballot");
    if (ballot) ballot.remove();
    return parsed.innerHTML;
  }

  // A new round: nobody has voted on it yet, so the student's own part need not be asked for; and a refusal
  // of a vote on the last one no longer holds.
  function resetMyVote(newRound) {
    var line = document.getElementById("my-vote");
    if (line) {
      line.textContent = /-open$/.test(newRound) ? line.getAttribute("data-label-not-voted") : "";
      line.removeAttribute("data-token");
    }
    var region = document.getElementById("error");
    if (region) region.replaceChildren();
  }

  // The student's own part, asked for within a moment (spread out, so that the class does not ask at once).
  function askMe(m) {
    window.setTimeout(function () { askMeNow(m); }, ME_DELAY_MS * Math.random());
  }

  function askMeNow(m) {
    if (main() === m) htmx.ajax("GET", m.dataset.roomMe, { source: m, target: "#me", swap: "outerHTML" });
  }

  // An answer with the student's own part says their vote as the server had it when it was asked. A vote sent
  // since, or one still on its way then, or a new round, makes it out of date: shown, it would mark the vote
  // before on the ballot. It is not shown, and the part is asked for again once no vote is on its way.
  var votesOnTheirWay = 0;
  var meChanges = 0; // votes sent and rounds begun on this page
  var meAsked = new WeakMap(); // a request for the student's part: meChanges when it was sent, or -1 if a vote was on its way
  var meWanted = null; // the page whose part was out of date, asked for again when no vote is on its way

  function meOutOfDate() { meChanges += 1; }

  function askMeWhenVotesAnswered() {
    if (!meWanted || votesOnTheirWay) return;
    var m = meWanted;
    meWanted = null;
    askMeNow(m);
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var detail = event.detail;
    var path = detail.pathInfo && detail.pathInfo.requestPath;
    if (path && VOTE_PATH.test(path)) {
      votesOnTheirWay += 1;
      meOutOfDate();
      detail.xhr.addEventListener("loadend", function () {
        votesOnTheirWay -= 1;
        askMeWhenVotesAnswered();
      });
    } else if (detail.target && detail.target.id === "me") {
      meAsked.set(detail.xhr, votesOnTheirWay ? -1 : meChanges);
    }
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail;
    if (!detail.target || detail.target.id !== "me" || !meAsked.has(detail.xhr)) return;
    if (meAsked.get(detail.xhr) === meChanges) return;
    detail.shouldSwap = false;
    meWanted = main();
    askMeWhenVotesAnswered();
  });

  // The student's vote marked on the ballot, as the server marks it on a page it sends: after a vote sent with
  // htmx (a button, or a typed word that is one of the buttons' tokens), the line that says it names its id.
  function markMyVote() {
    var line = document.getElementById("my-vote");
    var token = line ? line.getAttribute("data-token") : null;
    document.querySelectorAll("#ballot .ballot-token").forEach(function (button) {
      button.setAttribute("aria-pressed", button.value === token ? "true" : "false");
    });
  }
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    if (target && (target.id === "my-vote" || target.id === "me")) markMyVote();
  });

  // A student: poll the room's screen, swap the panels when the version changes.
  function follow(m) {
    var etag = m.dataset.roomEtag;
    var round = m.dataset.roomRound;
    var highest = parseInt(round, 10) || 0; // the latest round this page has seen
    var failures = 0; // polls failed in a row
    var retryAfterMs = 0;
    var away = false; // the last poll found no server (UNREACHED_MAX_MS)
    var showing = null; // the server's error message this script put on the page
    var ended = /-ended$/.test(round || ""); // the teacher ended the lesson: nothing more will change

    // After a failed poll, wait twice as long each time (up to a second while no server answers) and at least
    // what Retry-After says, spread at random so that a class does not come back in the same second.
    function schedule() {
      if (ended) return;
      var wait = document.hidden ? HIDDEN_POLL_MS : POLL_MS + (Math.random() * 2 - 1) * JITTER_MS;
      if (failures) {
        var most = away ? UNREACHED_MAX_MS : MAX_BACKOFF_MS;
        var backoff = Math.max(Math.min(most, POLL_MS * Math.pow(2, failures)), retryAfterMs);
        wait = Math.max(wait, backoff * (1 + Math.random() / 2));
      }
      window.setTimeout(poll, wait);
    }

    // The server's message (the page or the fragment of its error) where the page shows errors.
    function failed(response) {
      failures += 1;
      var seconds = parseInt(response.headers.get("Retry-After"), 10);
      retryAfterMs = seconds > 0 ? seconds * 1000 : 0;
      away = unreached(response.status) && !retryAfterMs; // a gateway's: the app behind it is away
      return response.text().then(function (html) {
        var parsed = document.createElement("template");
        parsed.innerHTML = html;
        var message = parsed.content.querySelector(".error-message");
        var region = document.getElementById("error");
        if (!message || !region) return;
        showing = document.importNode(message, true);
        region.replaceChildren(showing);
      });
    }

    function noAnswer() {
      failures += 1;
      retryAfterMs = 0;
      away = true;
      sayConnection(true);
    }

    function answered() {
      failures = 0;
      retryAfterMs = 0;
      away = false;
      if (showing && showing.parentNode) showing.parentNode.removeChild(showing);
      showing = null;
    }

    function update(response) {
      etag = (response.headers.get("ETag") || "").replace(/"/g, "");
      var newRound = response.headers.get("X-Room-Round") || "";
      return response.text().then(function (html) {
        var sameRound = newRound === round;
        ended = /-ended$/.test(newRound);
        htmx.swap(m, sameRound && /-open$/.test(newRound) ? withoutBallot(html) : html, { swapStyle: "none" });
        if (!sameRound) {
          forgetVote(); // a vote that did not arrive was for a round that is over
          var number = parseInt(newRound, 10) || 0;
          // A round the teacher left and came back to opens again with its votes: the student's may be among them.
          var again = /-open$/.test(newRound) && number <= highest;
          round = newRound;
          meOutOfDate();
          highest = Math.max(highest, number);
          if (!again) resetMyVote(newRound);
          // The record can wait a moment: the reveal's screens come first for the whole class.
          if (again || /-closed$/.test(newRound)) askMe(m);
        }
      });
    }

    function poll() {
      if (main() !== m) return;
      fetch(m.dataset.roomScreen, { headers: { "If-None-Match": '"' + etag + '"' }, cache: "no-store", credentials: "same-origin" })
        .then(function (response) {
          sayConnection(unreached(response.status));
          if (response.status === 404 || response.status === 410) {
            var status = document.getElementById("room-status");
            if (status) status.textContent = m.getAttribute("data-label-ended");
            throw new Error("stop");
          }
          if (response.status === 403) {
            // No longer a student of this room (an id from before, say): its page sends the browser to join again.
            window.location.assign(window.location.pathname);
            throw new Error("stop");
          }
          if (response.status !== 200 && response.status !== 304) return failed(response); // 429, 503, a proxy's 502
          answered();
          return response.status === 200 ? update(response) : null;
        }, noAnswer)
        .then(schedule, function (e) {
          if (e && e.message === "stop") return;
          failures += 1; // an answer cut short
          schedule();
        });
    }

    schedule();
  }

  // The ordinary stepper: offer the way back to the room this browser joined.
  function offerReturn() {
    var match = document.cookie.match(/(?:^|;\s*)tbt_room=([A-Z0-9]{8})(?:;|$)/);
    var header = document.querySelector(".site-header");
    if (!match || !header || document.getElementById("follow-teacher")) return;
    var link = document.createElement("a");
    link.id = "follow-teacher";
    link.className = "follow-teacher";
    link.href = "/room/" + match[1];
    link.textContent = header.getAttribute("data-label-follow");
    header.appendChild(link);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var m = main();
    var role = m && m.dataset.roomRole;
    if (role === "student") follow(m);
    else if (!role) offerReturn();
  });
})();
