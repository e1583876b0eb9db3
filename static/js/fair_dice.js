// The roller's share of the dice (docs/audit.md, "Provably fair dice"): fresh random bytes
// drawn here, in the roller's browser, for each roll form. The site's seed for the turn was
// committed before this page knew it, and this seed is chosen without the site's, so neither
// side alone decides a face. A form keeps its seed while it is retried (the one-time token's
// roll is the same roll); a new form gets a new one.
//
// The seed leaves the browser only with the roll: the forms' live previews leave it out
// (their hx-params), and a preview button's submission (name="preview", the previews that
// work without JavaScript) is sent without it here.
(function () {
  "use strict";
  function hex(bytes) {
    return Array.from(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }
  function fill(root) {
    root.querySelectorAll('input[name="client_seed"]').forEach(function (input) {
      if (!input.value && window.crypto && window.crypto.getRandomValues) {
        input.value = hex(window.crypto.getRandomValues(new Uint8Array(16)));
      }
    });
  }
  // The button that submits a form is known at "submit"; its form data is built just after,
  // in the "formdata" event, where the seed is taken out of a preview's.
  var previewing = null;
  document.addEventListener("submit", function (event) {
    var button = event.submitter;
    previewing = button && button.name === "preview" ? event.target : null;
  }, true);
  document.addEventListener("formdata", function (event) {
    if (event.target === previewing) {
      event.formData.delete("client_seed");
    }
    previewing = null;
  }, true);
  document.addEventListener("DOMContentLoaded", function () { fill(document); });
  document.addEventListener("htmx:load", function (event) { fill(event.target); });
})();
