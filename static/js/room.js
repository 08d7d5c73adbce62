/* The class room. On the teacher's page, each change of the screen is sent to the room (and the
   address stays on the room's page); on a student's page, the screen follows the teacher's by
   polling a conditional request (304 while nothing changed) every 0.4 to 0.8 s, stopping when the
   lesson has ended (the teacher ended it, or the room expired), and asking less and less often while
   the server refuses or fails (a 429, or the room's store not answering: a 503), with the server's
   message shown meanwhile; on the ordinary
   stepper, a student who left the room's screen gets a "Follow the teacher" link back. The words
   shown here come translated from the templates, in data-label-* attributes. */
(function () {
  "use strict";

  var POLL_MS = 600;
  var JITTER_MS = 200;
  var HIDDEN_POLL_MS = 3000; // a phone in a pocket asks less often
  var ME_DELAY_MS = 2000; // the student's record after a reveal: spread over two seconds
  var MAX_BACKOFF_MS = 8000; // a server that refuses (429) or fails is asked half as often each time, down to this (unless Retry-After asks for less)

  function main() { return document.getElementById("main"); }

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
    htmx.ajax("POST", m.dataset.roomPublish, { source: m, swap: "none", values: {
      url: url, action: action, present: page.get("present") || "", join: page.get("join") || "" } });
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
    window.setTimeout(function () {
      htmx.ajax("GET", m.dataset.roomMe, { source: m, target: "#me", swap: "outerHTML" });
    }, ME_DELAY_MS * Math.random());
  }

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
    var showing = null; // the server's error message this script put on the page
    var ended = /-ended$/.test(round || ""); // the teacher ended the lesson: nothing more will change

    // After a failed poll, wait twice as long each time and at least what Retry-After says, spread at
    // random so that a class does not come back in the same second when the server answers again.
    function schedule() {
      if (ended) return;
      var wait = document.hidden ? HIDDEN_POLL_MS : POLL_MS + (Math.random() * 2 - 1) * JITTER_MS;
      if (failures) {
        var backoff = Math.max(Math.min(MAX_BACKOFF_MS, POLL_MS * Math.pow(2, failures)), retryAfterMs);
        wait = Math.max(wait, backoff * (1 + Math.random() / 2));
      }
      window.setTimeout(poll, wait);
    }

    // The server's message (the page or the fragment of its error) where the page shows errors.
    function failed(response) {
      failures += 1;
      var seconds = parseInt(response.headers.get("Retry-After"), 10);
      retryAfterMs = seconds > 0 ? seconds * 1000 : 0;
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

    function answered() {
      failures = 0;
      retryAfterMs = 0;
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
          var number = parseInt(newRound, 10) || 0;
          // A round the teacher left and came back to opens again with its votes: the student's may be among them.
          var again = /-open$/.test(newRound) && number <= highest;
          round = newRound;
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
        })
        .then(schedule, function (e) {
          if (e && e.message === "stop") return;
          failures += 1; // no answer at all: the network, most likely
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
