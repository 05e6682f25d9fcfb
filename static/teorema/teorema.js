// Teorema's viewer: what htmx cannot do alone. No inline script anywhere (the CSP forbids it).
(function () {
  "use strict";

  // The connection state of the live socket, in words.
  function connection(text, state) {
    document.querySelectorAll("[data-connection]").forEach(function (el) {
      el.textContent = text;
      el.dataset.state = state;
    });
  }
  document.addEventListener("htmx:wsConnecting", function () { connection("connecting…", "connecting"); });
  document.addEventListener("htmx:wsOpen", function () { connection("live", "open"); });
  document.addEventListener("htmx:wsClose", function (event) {
    var closed = event.detail && event.detail.event ? event.detail.event : { code: 0, reason: "" };
    if (closed.code === 4403) { connection(closed.reason, "closed"); return; } // access lost: no reconnect
    connection(closed.code === 1000 ? "finished" : "reconnecting…", closed.code === 1000 ? "closed" : "lost");
  });

  // A form that cannot be taken back (cancelling a debate) asks first, in its own words.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) { event.preventDefault(); }
  });

  // The question field takes the focus on a wide screen only: on a phone it would scroll past the
  // title and the demo notice (and open the keyboard over them).
  var asked = document.querySelector("textarea[data-focus-wide]");
  if (asked !== null && !window.matchMedia("(max-width: 640px)").matches) { asked.focus({ preventScroll: true }); }

  // Follow the debate: keep the newest text in view until the reader scrolls up.
  var ownScroll = false;
  function following() {
    var box = document.querySelector("[data-follow]");
    return box !== null && box.checked;
  }
  function follow() {
    if (!following()) { return; }
    document.querySelectorAll(".card.status-streaming .card-body").forEach(function (body) {
      body.scrollTop = body.scrollHeight;
    });
    var bottom = document.documentElement.scrollHeight - window.innerHeight;
    if (window.scrollY < bottom - 1) {
      ownScroll = true;
      window.scrollTo(0, bottom);
    }
  }
  document.addEventListener("htmx:wsAfterMessage", follow);
  window.addEventListener("scroll", function () {
    if (ownScroll) { ownScroll = false; return; }
    var atBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 40;
    var box = document.querySelector("[data-follow]");
    if (box !== null && !atBottom) { box.checked = false; }
  }, { passive: true });
  document.addEventListener("change", function (event) {
    if (event.target.matches("[data-follow]") && event.target.checked) { follow(); }
  });

  // Elapsed time of calls in flight.
  setInterval(function () {
    var now = Date.now();
    document.querySelectorAll(".elapsed[data-since]").forEach(function (el) {
      var since = Number(el.dataset.since);
      if (since > 0) { el.textContent = ((now - since) / 1000).toFixed(1) + " s"; }
    });
  }, 200);

  // Long finished answers are folded; one click shows them whole.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-expand]");
    if (button === null) { return; }
    var card = button.closest(".card");
    card.classList.toggle("expanded");
    button.textContent = card.classList.contains("expanded") ? "Show less" : "Show all";
  });

  // By round, or one voice at a time: its answer, critique and final position in a row. Cards that
  // arrive over the socket are sorted into the view chosen, so the choice outlives every swap.
  var view = "";
  function showView(openFolds) {
    var rounds = document.getElementById("rounds");
    if (rounds === null) { return; }
    rounds.classList.toggle("by-voice", view !== "");
    document.querySelectorAll("#views [data-view]").forEach(function (tab) {
      var chosen = tab.dataset.view === view;
      tab.setAttribute("aria-selected", String(chosen));
      tab.tabIndex = chosen ? 0 : -1;
    });
    rounds.querySelectorAll("[data-voice]").forEach(function (el) {
      el.hidden = view !== "" && el.dataset.voice !== view;
      if (openFolds && el.matches("details.fold")) {
        if (view !== "" && !el.hidden && !el.open) { el.open = true; el.dataset.opened = "by-view"; }
        if (view === "" && el.dataset.opened === "by-view") { el.open = false; delete el.dataset.opened; }
      }
    });
    rounds.querySelectorAll(".round").forEach(function (round) {
      round.hidden = view !== "" && round.querySelector("[data-voice]:not([hidden])") === null;
    });
  }
  document.addEventListener("click", function (event) {
    var tab = event.target.closest("#views [data-view]");
    if (tab === null) { return; }
    view = tab.dataset.view;
    showView(true);
  });
  document.addEventListener("keydown", function (event) {
    var tab = event.target.closest("#views [data-view]");
    if (tab === null || (event.key !== "ArrowRight" && event.key !== "ArrowLeft")) { return; }
    var tabs = Array.from(document.querySelectorAll("#views [data-view]"));
    var next = tabs[(tabs.indexOf(tab) + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
    next.focus();
    next.click();
  });
  document.addEventListener("htmx:wsAfterMessage", function () { showView(false); });

  // The end of a run watched live: the final fragment pins the verdict on top and folds the rounds;
  // the tab title, a toast and the live region say so, and the page goes to the verdict.
  var watching = document.querySelector("#debate.is-live") !== null;
  var toastTimer = 0;
  function hideToast() {
    var toast = document.querySelector("[data-toast]");
    if (toast !== null) { toast.hidden = true; }
  }
  function announce(verdict) {
    document.title = verdict.dataset.title;
    notify(verdict);
    htmx.trigger(document.body, "teorema-over"); // what this reader alone may do next (the outcome form)
    var region = document.getElementById("announce");
    if (region !== null) { region.textContent = verdict.dataset.announce; }
    var toast = document.querySelector("[data-toast]");
    if (toast !== null) {
      toast.querySelector("[data-toast-text]").textContent = verdict.dataset.announce;
      toast.hidden = false;
      clearTimeout(toastTimer);
      toastTimer = setTimeout(hideToast, 12000);
    }
    showView(true);
    var still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    verdict.scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
  }
  // A round the page shows already is not added again, only the cards it lacks: a snapshot may
  // read the DB after the live state it is keyed by, so the broadcast of a round's start can
  // follow a snapshot that has the round, with none or some of its cards.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var round = event.detail.fragment.querySelector ? event.detail.fragment.querySelector("section.round[id]") : null;
    var shown = round !== null && event.detail.target.id === "rounds" ? document.getElementById(round.id) : null;
    if (shown === null) { return; }
    event.detail.shouldSwap = false;
    var cards = shown.querySelector(".cards");
    var before = null;
    round.querySelectorAll(".cards .card").forEach(function (card) {
      var present = document.getElementById(card.id);
      if (present === null) {
        present = document.importNode(card, true);
        if (before === null) { cards.prepend(present); } else { before.closest(".cards > *").after(present); }
        htmx.process(present);
      }
      before = present;
    });
  });
  document.addEventListener("htmx:oobAfterSwap", function () {
    var verdict = document.getElementById("verdict");
    if (!watching || verdict === null) { return; }
    watching = false;
    announce(verdict);
  });
  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-toast-close], [data-toast-read]") !== null) { hideToast(); }
  });

  // A browser notification when the run ends in a background tab: opted into with a click (the
  // permission is asked then, never before), remembered for the next runs.
  var NOTIFY = "teorema.notify";
  function notifying() {
    return window.Notification !== undefined && Notification.permission === "granted" && localStorage.getItem(NOTIFY) === "on";
  }
  function showNotify() {
    var button = document.querySelector("[data-notify]");
    if (button === null || window.Notification === undefined || Notification.permission === "denied") { return; }
    button.hidden = false;
    button.setAttribute("aria-pressed", String(notifying()));
    button.textContent = notifying() ? "Notifying when it ends ✓" : "Notify me when it ends";
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-notify]");
    if (button === null) { return; }
    if (notifying()) {
      localStorage.removeItem(NOTIFY);
      showNotify();
      return;
    }
    Notification.requestPermission().then(function (permission) {
      if (permission === "granted") { localStorage.setItem(NOTIFY, "on"); }
      showNotify();
    });
  });
  function notify(verdict) {
    if (!document.hidden || !notifying()) { return; }
    var note = new Notification(verdict.dataset.title, { body: verdict.dataset.announce, tag: verdict.dataset.title });
    note.onclick = function () { window.focus(); note.close(); };
  }
  showNotify();

  // Headings and anchors scrolled to land below the sticky status bar, whatever its height.
  var bar = document.querySelector(".live-bar");
  if (bar !== null && window.ResizeObserver !== undefined) {
    new ResizeObserver(function () {
      var height = bar.isConnected ? bar.getBoundingClientRect().height : 0;
      document.documentElement.style.setProperty("--live-bar", height + "px");
    }).observe(bar);
  }

  // An example question fills the ask form (its options and the vote protocol too, shown opened).
  document.addEventListener("click", function (event) {
    var example = event.target.closest("[data-example-text]");
    if (example === null) { return; }
    var form = example.closest("form");
    var fields = { text: example.dataset.exampleText, options: example.dataset.exampleOptions,
                   protocol: example.dataset.exampleProtocol };
    Object.keys(fields).forEach(function (name) {
      var field = form.elements[name];
      if (field === undefined) { return; }
      field.value = fields[name];
      if (fields[name]) {
        var folded = field.closest("details");
        if (folded !== null) { folded.open = true; }
      }
      field.dispatchEvent(new Event("input", { bubbles: true }));
    });
    form.elements.text.focus();
  });

  // Jargon: a term's meaning opens in the text on a click, a tap or a key, and closes the same way.
  document.addEventListener("click", function (event) {
    var term = event.target.closest("button.term");
    if (term === null) { return; }
    var anchor = term.closest(".chip") || term;
    var shown = anchor.nextElementSibling;
    if (shown !== null && shown.classList.contains("term-def")) {
      shown.remove();
      term.setAttribute("aria-expanded", "false");
      return;
    }
    var meaning = document.createElement("span");
    meaning.className = "term-def";
    meaning.setAttribute("role", "note");
    meaning.textContent = term.dataset.term;
    anchor.after(meaning);
    term.setAttribute("aria-expanded", "true");
  });
})();
