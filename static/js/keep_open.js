// A redraw keeps what the reader opened: a <details> open before an htmx swap is open after
// it (the table of every total's chance, a form folded away), found again by its id or its
// data-testid. Without this, a table someone just opened would fold shut under them as the
// preview redraws while they type.
(function () {
  "use strict";
  var opened = [];
  function key(details) {
    if (details.id) { return "#" + CSS.escape(details.id); }
    var name = details.getAttribute("data-testid");
    return name ? 'details[data-testid="' + CSS.escape(name) + '"]' : null;
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || !target.querySelectorAll) { return; }
    opened = Array.from(target.querySelectorAll("details[open]"), key).filter(Boolean);
    if (target.matches("details[open]") && key(target)) { opened.push(key(target)); }
  });
  document.addEventListener("htmx:afterSwap", function () {
    opened.forEach(function (selector) {
      var details = document.querySelector(selector);
      if (details) { details.open = true; }
    });
    opened = [];
  });
})();
