// The line above the Roll button says what the click rolls, and the server rolls only that
// roll (rolls/roll_plan.py: the form carries the line's digest). A click that comes while
// the line is being drawn again (a field just changed, its preview on its way) waits for
// it: if the roll is still the one the person read, it is made; if not, nothing is sent and
// the new line asks to be read. The form says which it is in `data-preview` ("pending" or
// "settled"), and the button is busy meanwhile.
(function () {
  "use strict";
  var FORM = "form[data-roll-plan]";
  var inflight = new Set();
  var dirty = false; // a field changed and no request has carried it yet
  var changedIn = null; // the form that change was made in
  var waiting = null; // a click held back: {digest, submitter}

  function form() { return document.querySelector(FORM); }
  function digest() {
    var input = document.querySelector('[data-testid="plan-digest"]');
    return input ? input.value : "";
  }
  function pending() { return dirty || inflight.size > 0; }
  // Whether a request concerns the panel's form: its own, a field's, a tab's.
  function concernsForm(elt) {
    var panel = form();
    if (!panel || !elt) { return false; }
    if (panel.contains(elt) || elt === panel) { return true; }
    var included = elt.getAttribute && elt.getAttribute("hx-include");
    return Boolean(included && document.querySelector(included) === panel);
  }

  function show() {
    var panel = form();
    if (!panel) { return; }
    panel.dataset.preview = pending() ? "pending" : "settled";
    var button = panel.querySelector(".roll-button");
    if (button) { button.setAttribute("aria-busy", pending() ? "true" : "false"); }
    if (!pending() && waiting) {
      var held = waiting;
      waiting = null;
      // The same line (or none, both times: the server then says what is missing, next
      // to the fields, and rolls nothing).
      if (held.digest === digest()) {
        panel.requestSubmit(panel.contains(held.submitter) ? held.submitter : button);
      } else {
        var changed = panel.querySelector('[data-testid="plan-changed"]');
        if (changed) { changed.hidden = false; }
      }
    }
  }

  // Capture: before the form's own handler sends the request the change asks for.
  ["input", "change"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var panel = form();
      if (panel && panel.contains(event.target) && event.target.name !== "plan") {
        dirty = true;
        changedIn = panel;
        var changed = panel.querySelector('[data-testid="plan-changed"]');
        if (changed) { changed.hidden = true; }
        show();
      }
    }, true);
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!concernsForm(event.detail.elt)) { return; }
    var xhr = event.detail.xhr;
    dirty = false; // this request carries every field as it is now
    inflight.add(xhr);
    xhr.addEventListener("loadend", function () {
      inflight.delete(xhr);
      // After htmx has swapped (or dropped) the answer.
      setTimeout(show, 0);
    });
    show();
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    // An answer drawn from choices changed since is dropped and asked again
    // (keep_choices.js): until then the line is not the form's. An error is asked again by
    // no one: a click waiting for it goes with the line it was made under (the server rolls
    // that roll or refuses it).
    var detail = event.detail;
    if (!detail.shouldSwap && !detail.isError && concernsForm(detail.requestConfig && detail.requestConfig.elt)) {
      dirty = true;
    }
  });
  document.addEventListener("htmx:afterSettle", function () {
    var panel = form();
    if (dirty && panel && changedIn && changedIn !== panel) {
      // The panel was drawn anew (a field others depend on, a tab) from the form as it was
      // when that redraw left: a change made while it was on its way waited to be sent by
      // the form it replaced, and htmx sends nothing for an element no longer in the page.
      // The new form sends it, or the line would never describe it (and a click would wait
      // for it forever).
      changedIn = panel;
      htmx.trigger(panel, "change");
    }
    show();
  });
  document.addEventListener("submit", function (event) {
    var panel = event.target;
    if (!panel.matches || !panel.matches(FORM)) { return; }
    var submitter = event.submitter;
    if (!submitter || !submitter.classList.contains("roll-button")) { return; }
    if (pending()) {
      event.preventDefault();
      waiting = {digest: digest(), submitter: submitter};
    }
  });
  document.addEventListener("DOMContentLoaded", show);
  // What the page waits for, for whoever asks (the browser tests print it when stuck).
  window.rollPlanState = function () {
    return {dirty: dirty, inflight: inflight.size, holding: Boolean(waiting)};
  };
})();
