// The colour theme: "light" or "dark" as html[data-theme], remembered in localStorage; "system"
// (or nothing remembered) leaves the attribute off so the CSS follows the OS preference.
// Loaded in <head> without defer, so a remembered choice applies before the first paint.
(function () {
  "use strict";
  var KEY = "teorema-theme";
  var root = document.documentElement;

  function remembered() {
    try {
      return localStorage.getItem(KEY);
    } catch (error) {
      return null; // storage blocked: the OS preference still applies
    }
  }

  function apply(choice) {
    if (choice === "light" || choice === "dark") {
      root.setAttribute("data-theme", choice);
    } else {
      root.removeAttribute("data-theme");
    }
  }

  function remember(choice) {
    try {
      if (choice === "system") {
        localStorage.removeItem(KEY);
      } else {
        localStorage.setItem(KEY, choice);
      }
    } catch (error) {
      // storage blocked: the choice holds for this page only
    }
  }

  function control() {
    return document.querySelector("[data-theme-choice]");
  }

  function showChoice() {
    var select = control();
    if (select) {
      select.value = root.getAttribute("data-theme") || "system";
    }
  }

  apply(remembered());

  document.addEventListener("DOMContentLoaded", function () {
    var select = control();
    if (!select) {
      return;
    }
    showChoice();
    select.closest(".theme-choice").hidden = false;
    select.addEventListener("change", function () {
      remember(select.value);
      apply(select.value);
    });
  });

  // A choice made in another tab applies here too.
  window.addEventListener("storage", function (event) {
    if (event.key === KEY) {
      apply(event.newValue);
      showChoice();
    }
  });
})();
