// The question page's conversation tools: print, and copy the share link. No inline script (CSP).
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-print]")) {
      window.print();
      return;
    }
    var copy = event.target.closest("[data-copy]");
    if (copy === null) { return; }
    var field = document.getElementById(copy.dataset.copy);
    field.select();
    navigator.clipboard.writeText(field.value).then(function () { copy.textContent = "Copied"; });
  });
})();
