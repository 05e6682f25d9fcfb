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
    var code = event.detail && event.detail.event ? event.detail.event.code : 0;
    connection(code === 1000 ? "finished" : "reconnecting…", code === 1000 ? "closed" : "lost");
  });

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
})();
