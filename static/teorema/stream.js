// A live run as it streams: each card's Markdown drawn as it comes, and the figures estimated.
// The server appends raw text to a card's .stream element (escaped); here it is drawn beside it,
// sanitised, and the raw element hidden. The finished card is the server's own render.
(function () {
  "use strict";

  // As debates/lib/render.py draws a finished text: CommonMark, tables, strikethrough, no raw HTML,
  // images as links, then an allow-list (only http, https and mailto links).
  var md = window.markdownit("commonmark", { html: false, breaks: false }).enable(["table", "strikethrough"]);
  md.renderer.rules.image = function (tokens, idx) {
    var token = tokens[idx];
    return '<a href="' + md.utils.escapeHtml(token.attrGet("src") || "") + '">[image: ' +
      md.utils.escapeHtml(token.content || "image") + "]</a>";
  };
  var PURIFY = {
    ALLOWED_TAGS: ["p", "br", "hr", "blockquote", "pre", "code", "em", "strong", "s", "del", "a",
      "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td"],
    ALLOWED_ATTR: ["href", "title", "start"],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  };
  window.DOMPurify.addHook("afterSanitizeAttributes", function (node) {
    if (node.tagName === "A") { node.setAttribute("rel", "noopener noreferrer"); }
  });
  function render(text) { return window.DOMPurify.sanitize(md.render(text), PURIFY); }

  // What a streaming card shows of its text: its prose, as the finished card does. The closing block
  // (ANSWER:, CLAIMS:, CALC: …) is held back from its first heading, found as closing._heading finds
  // one (the words are the server's, on #live); the judge's JSON is drawn as a line until it is read.
  var headings = null;
  function isHeading(line) {
    if (headings === null) {
      var live = document.getElementById("live");
      headings = new Set(live && live.dataset.closingHeadings ? JSON.parse(live.dataset.closingHeadings) : []);
    }
    var bare = line.trim().replace(/^[ \t>#*_`]+/, "");
    var found = bare.match(/^([^:：]{1,48})([:：])(.*)$/);
    var word = (found ? found[1] : bare).replace(/\([^)]{0,40}\)/g, "").replace(/^[ \t>#*_`]+|[ \t>#*_`]+$/g, "");
    var known = word.length > 0 && word.length <= 40 &&
      headings.has(word.normalize("NFKC").toLowerCase().replace(/’/g, "'").split(/\s+/).join(" "));
    return known && (found !== null || /^\s*[#*_]/.test(line) || word === word.toUpperCase());
  }
  function prose(text) {
    var lines = text.split("\n");
    var cut = lines.findIndex(function (line, i) { return i > 0 && isHeading(line); });
    return cut < 0 ? text : lines.slice(0, cut).join("\n");
  }
  var JUDGING = "<p class=\"hint\">Grouping the answers by meaning…</p>";

  function draw(raw) {
    var drawn = raw.nextElementSibling;
    if (drawn === null || !drawn.classList.contains("drawn")) {
      drawn = document.createElement("div");
      drawn.className = "card-body markdown drawn";
      raw.after(drawn);
      raw.classList.add("is-drawn");
    }
    var text = raw.textContent;
    if (drawn.dataset.length === String(text.length)) { return; }
    drawn.innerHTML = raw.dataset.kind === "agreement" ? JUDGING : render(prose(text));
    drawn.dataset.length = String(text.length);
    var follow = document.querySelector("[data-follow]");
    if (follow !== null && follow.checked) { drawn.scrollTop = drawn.scrollHeight; }
  }

  // About four characters a token, as debates/providers estimate_tokens; prices are per million.
  var MILLION = 1e6;
  function estimated(card) {
    var body = card.querySelector(".card-body.stream");
    var out = Math.ceil((body === null ? 0 : body.textContent.length) / 4);
    var prompt = Number(card.dataset.promptTokens) || 0;
    var cost = (prompt * (Number(card.dataset.priceIn) || 0) + out * (Number(card.dataset.priceOut) || 0)) / MILLION;
    return { tokens: prompt + out, prompt: prompt, out: out, cost: cost };
  }
  function figures() {
    var tokens = 0;
    var cost = 0;
    var streaming = document.querySelectorAll(".card[data-prompt-tokens]");
    streaming.forEach(function (card) {
      var spent = estimated(card);
      tokens += spent.tokens;
      cost += spent.cost;
      var meta = card.querySelector("[data-estimate]");
      // Labelled as the finished card's figures are: what the call read and what it wrote.
      if (meta !== null) { meta.textContent = spent.out ? "~" + spent.prompt + " in + ~" + spent.out + " out tokens" : ""; }
    });
    document.querySelectorAll("#totals [data-tokens]").forEach(function (el) {
      var stored = Number(el.dataset.tokens);
      el.textContent = (streaming.length ? "~" : "") + (stored + tokens) + " tokens in + out";
      el.title = streaming.length ? "estimated while text streams: each call's own figures replace it when it ends" : "";
    });
    document.querySelectorAll("#totals [data-cost]").forEach(function (el) {
      var stored = Number(el.dataset.cost);
      el.textContent = (streaming.length ? "~$" : "$") + (stored + cost).toFixed(4);
    });
  }

  var pending = false;
  function update() {
    pending = false;
    document.querySelectorAll(".card.status-streaming .card-body.stream").forEach(draw);
    figures();
  }
  function soon() {
    if (!pending) { pending = true; requestAnimationFrame(update); }
  }
  document.addEventListener("htmx:wsAfterMessage", soon);
  document.addEventListener("htmx:load", soon);
  soon();
})();
