// Copy buttons (the first fix step) and links into collapsed sections. The page works without this script:
// the buttons stay hidden, and the collapsed sections open by hand.
(function () {
  "use strict";
  if (navigator.clipboard) {
    document.querySelectorAll("button[data-copy-target]").forEach(function (button) {
      var target = document.getElementById(button.getAttribute("data-copy-target"));
      if (!target) return;
      button.hidden = false;
      button.addEventListener("click", function () {
        // A step with a command block copies the command; otherwise the step's text.
        var code = target.querySelector("pre code");
        var text = (code || target).innerText.trim();
        navigator.clipboard.writeText(text).then(function () {
          button.textContent = "Copied";
          setTimeout(function () { button.textContent = "Copy"; }, 1500);
        }, function () { button.textContent = "Copy failed"; });
      });
    });
  }
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    for (var d = el && el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
    if (el) el.scrollIntoView();
  }
  window.addEventListener("hashchange", openTarget);
  if (location.hash) openTarget();
})();
