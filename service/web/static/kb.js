// The encyclopedia's filter: typing in the search box hides the entries whose id, title, category,
// summary and tags do not contain every word. Submitting the form still runs the server-side search.
(function () {
  "use strict";
  var input = document.querySelector("input[data-filter]");
  if (!input) return;
  var scope = document.querySelector(input.dataset.filter);
  var status = document.getElementById("filter-status");
  var none = document.getElementById("kb-none");
  if (!scope) return;
  var items = Array.prototype.slice.call(scope.querySelectorAll("[data-search]"));
  var groups = Array.prototype.slice.call(scope.querySelectorAll("[data-group]"));
  var initial = status ? status.textContent : "";

  function apply() {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    items.forEach(function (item) {
      var text = item.getAttribute("data-search");
      var match = words.every(function (w) { return text.indexOf(w) >= 0; });
      item.hidden = !match;
      if (match) shown += 1;
    });
    groups.forEach(function (g) {
      g.hidden = !g.querySelector("[data-search]:not([hidden])");
    });
    if (none) none.hidden = shown > 0;
    if (status) {
      status.textContent = words.length ? shown + " of " + items.length + " entries match. Press Search to match error messages too." : initial;
    }
  }

  // On a phone the category groups start collapsed (67+ cards are 20,000 px); a filter opens the groups it matches.
  var phone = window.matchMedia && window.matchMedia("(max-width: 40rem)").matches;
  function fold() {
    var filtering = input.value.trim() !== "";
    groups.forEach(function (g) { if (g.tagName === "DETAILS") g.open = filtering || !phone; });
  }
  fold();
  input.addEventListener("input", function () { apply(); fold(); });
})();
