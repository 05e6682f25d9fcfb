// What a reader used to chat apps expects: Ctrl/Cmd+Enter sends a form, and Copy gives the Markdown.
(function () {
  "use strict";

  var platform = (navigator.userAgentData && navigator.userAgentData.platform) || navigator.platform || "";
  var mac = /mac|iphone|ipad/i.test(platform);
  document.querySelectorAll("[data-mod-key]").forEach(function (key) { key.textContent = mac ? "⌘ Cmd" : "Ctrl"; });

  // Ctrl+Enter (⌘+Enter on a Mac) sends a form marked data-send from any of its fields, the
  // textarea included, as its submit button would (the browser's own checks first).
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.isComposing) { return; }
    var form = event.target.closest && event.target.closest("form[data-send]");
    if (form === null || form === undefined) { return; }
    event.preventDefault();
    form.requestSubmit();
  });

  // Copy as Markdown: the model's own words, from the element data-copy names (an inert template
  // once a text is finished, the streamed text while it streams).
  function markdownOf(button) {
    var source = document.querySelector(button.dataset.copy);
    if (source === null) { return ""; }
    return (source.content ? source.content.textContent : source.textContent).trim();
  }
  // navigator.clipboard exists only in a secure context: over http on a LAN address, the old way.
  function copyTheOldWay(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.appendChild(area);
    area.select();
    var copied = document.execCommand("copy");
    area.remove();
    return copied ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }
  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () { return copyTheOldWay(text); });
    }
    return copyTheOldWay(text);
  }
  function say(button, words) {
    var region = document.getElementById("copied");
    if (region !== null) {
      region.textContent = "";
      setTimeout(function () { region.textContent = words; }, 50); // a change the screen reader hears
    }
    button.textContent = words.startsWith("Copied") ? "Copied ✓" : "Not copied";
    clearTimeout(button.copiedTimer);
    button.copiedTimer = setTimeout(function () { button.textContent = "Copy"; }, 2000);
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-copy]");
    if (button === null) { return; }
    copy(markdownOf(button)).then(
      function () { say(button, "Copied as Markdown"); },
      function () { say(button, "Not copied: select the text and copy it instead"); }
    );
  });

  // A printed page (or a PDF saved from it) holds everything the screen folds away: every fold
  // opens for the print and closes again after it.
  var foldedForPrint = [];
  window.addEventListener("beforeprint", function () {
    foldedForPrint = Array.prototype.filter.call(document.querySelectorAll("details:not([open])"), function (fold) {
      fold.open = true;
      return true;
    });
  });
  window.addEventListener("afterprint", function () {
    foldedForPrint.forEach(function (fold) { fold.open = false; });
    foldedForPrint = [];
  });
})();
