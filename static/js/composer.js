// The composer's toolbar: buttons (and Ctrl+B, Ctrl+I) that wrap the selection of the
// form's textarea in the Markdown and markers the post's renderer reads. The server renders
// the toolbar hidden; this script shows it above its textarea, so without JS the textarea
// takes plain Markdown and no dead buttons are shown.
(function () {
  "use strict";
  if (window.codziennikComposer) return;
  window.codziennikComposer = true;

  function textareaOf(bar) {
    var form = bar.closest("form");
    return form && form.querySelector("textarea[name='" + bar.dataset.composerField + "']");
  }

  function pictureInput(form) {
    return form && form.querySelector("input[type=file][name=images], input[type=file][data-composer-picture-input]");
  }

  // Replaces start..end with `text` through the editing commands, so Ctrl+Z undoes it and
  // an input event tells the draft's script; then selects `select` (offsets into `text`).
  function replace(textarea, start, end, text, select) {
    textarea.focus();
    textarea.setSelectionRange(start, end);
    var done = false;
    try {
      done = document.execCommand("insertText", false, text);
    } catch (error) {
      done = false;
    }
    if (!done || textarea.value.slice(start, start + text.length) !== text) {
      textarea.setRangeText(text, start, end, "end");
      textarea.dispatchEvent(new Event("input", { bubbles: true }));
    }
    textarea.setSelectionRange(start + select[0], start + select[1]);
  }

  // Wraps the selection (its surrounding spaces left outside) in before…after; with nothing
  // selected, puts `placeholder` between them and selects it to be typed over.
  function wrap(textarea, before, after, placeholder) {
    var start = textarea.selectionStart;
    var end = textarea.selectionEnd;
    var selected = textarea.value.slice(start, end);
    var lead = selected.match(/^\s*/)[0];
    var trail = selected.slice(lead.length).match(/\s*$/)[0];
    var inner = selected.slice(lead.length, selected.length - trail.length);
    if (!inner) {
      inner = placeholder || "";
      lead = trail = "";
    }
    var text = lead + before + inner + after + trail;
    var from = lead.length + before.length;
    replace(textarea, start, end, text, [from, from + inner.length]);
  }

  function quote(textarea) {
    var value = textarea.value;
    var start = value.lastIndexOf("\n", textarea.selectionStart - 1) + 1;
    var end = textarea.selectionEnd;
    var lines = value.slice(start, end).split("\n");
    var text = lines.map(function (line) { return "> " + line; }).join("\n");
    replace(textarea, start, end, text, [text.length, text.length]);
  }

  var ACTIONS = {
    bold: function (textarea) { wrap(textarea, "**", "**", ""); },
    italic: function (textarea) { wrap(textarea, "*", "*", ""); },
    quote: quote,
    spoiler: function (textarea) { wrap(textarea, "[spoiler]", "[/spoiler]", ""); },
    // The chosen names go in the opening marker: the placeholder is selected to type over.
    for: function (textarea, button) {
      var name = button.dataset.composerPlaceholder || "name";
      var start = textarea.selectionStart;
      var end = textarea.selectionEnd;
      var text = "[dla: " + name + "]" + textarea.value.slice(start, end) + "[/dla]";
      replace(textarea, start, end, text, [6, 6 + name.length]);
    },
    // The selection becomes the roll's label; the caret waits after the notation.
    dice: function (textarea) {
      var start = textarea.selectionStart;
      var end = textarea.selectionEnd;
      var label = textarea.value.slice(start, end).trim();
      var text = "[[1k20 " + label + "]]";
      replace(textarea, start, end, text, [text.length - 2, text.length - 2]);
    },
    picture: function (textarea) {
      var input = pictureInput(textarea.closest("form"));
      if (!input) return;
      input.focus();
      input.click();
    },
  };

  function setUp() {
    document.querySelectorAll("[data-composer]").forEach(function (bar) {
      var textarea = textareaOf(bar);
      if (!textarea || bar.dataset.composerReady) return;
      bar.dataset.composerReady = "1";
      textarea.parentNode.insertBefore(bar, textarea);
      var picture = bar.querySelector("[data-composer-picture]");
      if (picture) picture.hidden = !pictureInput(bar.closest("form"));
      // One Tab stop for the whole toolbar (the ARIA toolbar's pattern): the arrows move
      // between its buttons, so the form's own fields stay as few presses apart as before.
      buttonsOf(bar).forEach(function (button, index) {
        button.tabIndex = index === 0 ? 0 : -1;
      });
      bar.hidden = false;
    });
  }

  function buttonsOf(bar) {
    return Array.prototype.filter.call(bar.querySelectorAll("button"), function (button) {
      return !button.hidden;
    });
  }

  function moveFocus(bar, current, key) {
    var buttons = buttonsOf(bar);
    var index = buttons.indexOf(current);
    var next = {
      ArrowRight: (index + 1) % buttons.length,
      ArrowLeft: (index - 1 + buttons.length) % buttons.length,
      Home: 0,
      End: buttons.length - 1,
    }[key];
    buttons.forEach(function (button, place) { button.tabIndex = place === next ? 0 : -1; });
    buttons[next].focus();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-composer-action]");
    if (!button) return;
    var bar = button.closest("[data-composer]");
    var textarea = bar && textareaOf(bar);
    if (!textarea) return;
    event.preventDefault();
    ACTIONS[button.dataset.composerAction](textarea, button);
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var toolbar = target && target.closest && target.closest("[data-composer]");
    if (toolbar && ["ArrowRight", "ArrowLeft", "Home", "End"].indexOf(event.key) !== -1) {
      event.preventDefault();
      moveFocus(toolbar, target, event.key);
      return;
    }
    if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
    if (!target || target.tagName !== "TEXTAREA") return;
    var bar = target.parentNode && target.parentNode.querySelector("[data-composer]");
    if (!bar || textareaOf(bar) !== target) return;
    var key = event.key.toLowerCase();
    if (key !== "b" && key !== "i") return;
    event.preventDefault();
    ACTIONS[key === "b" ? "bold" : "italic"](target);
  });

  setUp();
  // A preview swaps the form in again (htmx): its toolbar is set up anew.
  document.addEventListener("htmx:afterSettle", setUp);
})();
