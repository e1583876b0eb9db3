// A form that htmx redraws as its choices change (the roll panel, the request for a roll)
// is drawn from the choices it held when the request left. If the person has changed a
// choice since (picked another attribute while the redraw for a new character was on its
// way), that answer is stale: swapped in, it would put the old choice back, or show the
// chance of a test nobody has chosen. It is dropped, and the request is sent again with the
// choices the form holds now. Text fields are left out: a redraw keeps them as they are
// (hx-preserve), and their own delayed preview follows the typing.
(function () {
  "use strict";
  // The element whose request it is (htmx:beforeSwap is fired on the target, not on it).
  function requester(event) {
    return event.detail.requestConfig ? event.detail.requestConfig.elt : null;
  }
  // A field's own form; a tab's link (outside the form) names the form it sends.
  function formOf(elt) {
    if (!elt || !elt.closest) { return null; }
    var included = elt.getAttribute("hx-include");
    var named = included && included.charAt(0) === "#" ? document.querySelector(included) : null;
    if (named && named.matches("form[data-keep-choices]")) { return named; }
    return elt.closest("form[data-keep-choices]");
  }
  // How the request is sent again: a link or a button is clicked, a field or a form changes.
  function again(elt) {
    return elt.tagName === "A" || elt.tagName === "BUTTON" ? "click" : "change";
  }
  function choices(form) {
    var state = [];
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.name) { return; }
      if (field.name === "mode" || field.name === "ask") {
        state.push([field.name, field.value]);
      } else if (field.tagName === "SELECT") {
        state.push([field.name, Array.from(field.selectedOptions, function (o) { return o.value; })]);
      } else if (field.type === "checkbox" || field.type === "radio") {
        state.push([field.name, field.value, field.checked]);
      }
    });
    return JSON.stringify(state);
  }
  // A tab's or a mode's link (data-switch-mode) sets the form's mode as it is clicked:
  // whatever the form sends from then on asks for the new mode, so a choice made while the
  // new mode's redraw is on its way cannot bring the old mode back.
  // "Do not answer this request" (data-leave-ask) empties the form's request the same way.
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("[data-switch-mode]") : null;
    var form = link ? formOf(link) : null;
    var mode = form ? form.querySelector('input[name="mode"]') : null;
    if (mode) { mode.value = link.getAttribute("data-switch-mode"); }
    var leave = event.target.closest ? event.target.closest("[data-leave-ask]") : null;
    var ask = leave ? formOf(leave) && formOf(leave).querySelector('input[name="ask"]') : null;
    if (ask) { ask.value = ""; }
  }, true);
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = formOf(requester(event));
    if (form) { event.detail.xhr.keptChoices = choices(form); }
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var elt = requester(event);
    var form = formOf(elt);
    var sent = event.detail.xhr && event.detail.xhr.keptChoices;
    if (!form || sent === undefined || !event.detail.shouldSwap) { return; }
    if (choices(form) !== sent) {
      event.detail.shouldSwap = false;
      // Once this request is over: htmx drops a new request of an element while its last
      // one is still being answered.
      setTimeout(function () {
        if (document.contains(elt)) { htmx.trigger(elt, again(elt)); }
      }, 0);
    }
  });
})();
