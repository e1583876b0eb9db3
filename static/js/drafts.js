// Drafts that survive: what the author types is saved on the server a few seconds after
// they stop (and when they leave the field or the page), so any device offers it back. When
// the server cannot take it (the log-in ran out, no connection), the text is kept in this
// browser under the user and the place, and the page restores it after logging in again.
// Nothing here ever replaces what is being typed: the form is filled only as the page loads.
(function () {
  "use strict";
  if (window.codziennikDrafts) return;
  window.codziennikDrafts = true;

  var DELAY = 3000;
  var states = new WeakMap();

  function fieldsOf(bar) {
    var form = bar.closest("form");
    return {
      form: form,
      text: form.querySelector("textarea[name='" + bar.dataset.draftField + "']"),
      note: form.querySelector("textarea[name=nc_note]"),
      character: form.querySelector("select[name=character]"),
    };
  }

  function snapshot(fields) {
    return {
      text: fields.text.value,
      note: fields.note ? fields.note.value : "",
      character: fields.character ? fields.character.value : "",
    };
  }

  function same(a, b) {
    return a.text === b.text && a.note === b.note && a.character === b.character;
  }

  function readLocal(key) {
    try {
      return JSON.parse(window.localStorage.getItem(key));
    } catch (error) {
      return null;
    }
  }

  function keepLocal(key, snap) {
    try {
      var kept = { text: snap.text, note: snap.note, character: snap.character, saved: Date.now() };
      window.localStorage.setItem(key, JSON.stringify(kept));
    } catch (error) {
      // No storage (private mode, full): the server copy is all there is.
    }
  }

  function dropLocal(key) {
    try {
      window.localStorage.removeItem(key);
    } catch (error) {
      // Nothing kept, nothing to drop.
    }
  }

  function csrfToken(form) {
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function say(bar, text, withLogin) {
    var status = bar.querySelector("[data-draft-status]");
    status.textContent = text;
    if (withLogin) {
      var link = document.createElement("a");
      var back = window.location.pathname + window.location.search + "#write";
      link.href = bar.dataset.msgLoginUrl + "?next=" + encodeURIComponent(back);
      link.textContent = bar.dataset.msgLogin;
      status.appendChild(document.createTextNode(" "));
      status.appendChild(link);
    }
  }

  function showDiscard(bar, shown) {
    var button = bar.querySelector("[data-draft-discard]");
    if (button) button.hidden = !shown;
  }

  function state(bar) {
    var current = states.get(bar);
    if (!current) {
      current = { timer: null, saved: snapshot(fieldsOf(bar)), leaving: false };
      states.set(bar, current);
    }
    return current;
  }

  function isJson(response) {
    return (response.headers.get("Content-Type") || "").indexOf("application/json") !== -1;
  }

  function save(bar, leaving) {
    var current = state(bar);
    window.clearTimeout(current.timer);
    current.timer = null;
    if (!bar.isConnected || current.leaving) return;
    var fields = fieldsOf(bar);
    var snap = snapshot(fields);
    if (same(snap, current.saved)) return;
    var key = bar.dataset.draftKey;
    // Kept here until the server answers that it has it.
    keepLocal(key, snap);
    var body = new FormData();
    body.append("csrfmiddlewaretoken", csrfToken(fields.form));
    body.append("text", snap.text);
    body.append("note", snap.note);
    body.append("character", snap.character);
    fetch(bar.dataset.draftUrl, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      // A log-in that ran out answers with a redirect to the log-in page: seen, not followed.
      redirect: "manual",
      keepalive: Boolean(leaving),
      headers: { Accept: "application/json" },
    }).then(function (response) {
      if (response.type === "opaqueredirect" || (response.status === 403 && !isJson(response))) {
        say(bar, bar.dataset.msgLoggedOut, true);
        return;
      }
      if (response.status === 429) {
        say(bar, bar.dataset.msgBusy);
        return;
      }
      if (!isJson(response)) {
        say(bar, bar.dataset.msgOffline);
        return;
      }
      return response.json().then(function (answer) {
        if (!response.ok) {
          say(bar, answer.error || bar.dataset.msgOffline);
          return;
        }
        current.saved = snap;
        var local = readLocal(key);
        if (local && same(local, snap)) dropLocal(key);
        say(bar, answer.status || "");
        showDiscard(bar, answer.saved);
      });
    }, function () {
      say(bar, bar.dataset.msgOffline);
    });
  }

  function schedule(bar) {
    var current = state(bar);
    window.clearTimeout(current.timer);
    current.timer = window.setTimeout(function () { save(bar, false); }, DELAY);
  }

  // As the page loads: a copy kept in this browser that is newer than the server's draft
  // (written while logged out, or offline) fills the form and goes to the server.
  function setUp(bar) {
    if (bar.dataset.draftReady) return;
    bar.dataset.draftReady = "1";
    // Saved as the author types: the button that saves without JS is not needed.
    var saveButton = bar.querySelector("[data-draft-save]");
    if (saveButton) saveButton.hidden = true;
    var fields = fieldsOf(bar);
    if (!fields.text) return;
    var current = state(bar);
    var local = readLocal(bar.dataset.draftKey);
    if (!local) return;
    var serverSavedAt = Number(bar.dataset.draftSavedAt) || 0;
    if (local.saved > serverSavedAt && !same(local, current.saved)) {
      fields.text.value = local.text || "";
      if (fields.note) fields.note.value = local.note || "";
      if (fields.character && local.character !== undefined) fields.character.value = local.character;
      say(bar, bar.dataset.msgRestored);
      save(bar, false);
    } else {
      dropLocal(bar.dataset.draftKey);
    }
  }

  function barOf(element) {
    var form = element && element.closest && element.closest("form");
    return form && form.querySelector("[data-draft]");
  }

  function setUpAll() {
    document.querySelectorAll("[data-draft]").forEach(setUp);
  }

  document.addEventListener("input", function (event) {
    var bar = barOf(event.target);
    if (bar) schedule(bar);
  });
  document.addEventListener("change", function (event) {
    var bar = barOf(event.target);
    if (bar) schedule(bar);
  });
  // Leaving the field saves at once, unless focus goes to one of the form's buttons that
  // send it (Publish, Preview, Discard): those carry the text themselves, and a save racing
  // the post could bring back the draft the post deletes.
  document.addEventListener("focusout", function (event) {
    var bar = barOf(event.target);
    if (!bar || event.target.tagName !== "TEXTAREA") return;
    var next = event.relatedTarget;
    if (next && next.form === event.target.form && next.type === "submit") return;
    save(bar, false);
  });
  document.addEventListener("submit", function (event) {
    var bar = barOf(event.target);
    if (!bar) return;
    var current = state(bar);
    window.clearTimeout(current.timer);
    current.timer = null;
    var submitter = event.submitter;
    if (submitter && (submitter.hasAttribute("data-draft-discard") || submitter.hasAttribute("data-draft-save"))) return;
    if (submitter && submitter.getAttribute("hx-post")) {
      // A preview stays on the page (htmx swaps the form in again): save what it shows.
      save(bar, false);
      return;
    }
    // The form goes: the post (or its refusal) takes over; no save may follow it.
    current.leaving = true;
    if (same(snapshot(fieldsOf(bar)), current.saved)) dropLocal(bar.dataset.draftKey);
  });
  function saveAllNow() {
    document.querySelectorAll("[data-draft]").forEach(function (bar) { save(bar, true); });
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") saveAllNow();
  });
  window.addEventListener("pagehide", saveAllNow);

  // "Odrzuć szkic" with JS: the draft goes, the form is emptied, the page stays.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-draft-discard]");
    if (!button) return;
    var bar = barOf(button);
    if (!bar) return;
    event.preventDefault();
    var fields = fieldsOf(bar);
    var current = state(bar);
    window.clearTimeout(current.timer);
    var body = new FormData();
    body.append("csrfmiddlewaretoken", csrfToken(fields.form));
    fetch(bar.dataset.draftDiscardUrl, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      redirect: "manual",
      headers: { Accept: "application/json" },
    }).then(function (response) {
      if (!response.ok || !isJson(response)) {
        say(bar, bar.dataset.msgLoggedOut, true);
        return;
      }
      return response.json().then(function (answer) {
        fields.text.value = "";
        if (fields.note) fields.note.value = "";
        current.saved = snapshot(fields);
        dropLocal(bar.dataset.draftKey);
        showDiscard(bar, false);
        say(bar, answer.status || "");
        fields.text.focus();
      });
    }, function () {
      say(bar, bar.dataset.msgOffline);
    });
  });

  setUpAll();
  document.addEventListener("htmx:afterSettle", setUpAll);
})();
