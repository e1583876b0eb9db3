// "Quote" with a selection: quotes only the selected part of the post's narration, with the
// same header (author and link back) the server writes, at the cursor in the reply textarea.
// Without a selection inside that post the link works as without JS (the server pre-fills).
(function () {
  "use strict";

  function selectionIn(post) {
    var selection = window.getSelection();
    if (!selection || selection.isCollapsed || selection.rangeCount === 0) return "";
    var narration = post && post.querySelector(".narration");
    if (!narration) return "";
    var range = selection.getRangeAt(0);
    if (!narration.contains(range.commonAncestorContainer)) return "";
    return selection.toString().trim();
  }

  function blockquote(header, text) {
    var lines = [header, ""].concat(text.replace(/\r\n/g, "\n").split("\n"));
    return lines.map(function (line) { return ("> " + line).replace(/\s+$/, ""); }).join("\n") + "\n\n";
  }

  function insertAtCursor(textarea, text) {
    var start = textarea.selectionStart || 0;
    var end = textarea.selectionEnd || 0;
    var before = textarea.value.slice(0, start);
    if (before && !/\n\n$/.test(before)) before += before.slice(-1) === "\n" ? "\n" : "\n\n";
    textarea.value = before + text + textarea.value.slice(end);
    var caret = before.length + text.length;
    textarea.focus();
    textarea.setSelectionRange(caret, caret);
  }

  // The selection must be read before the click moves it, so remember it on pointerdown.
  var remembered = {};
  document.addEventListener("pointerdown", function (event) {
    var link = event.target.closest && event.target.closest("a[data-quote-post]");
    if (link) remembered[link.dataset.quotePost] = selectionIn(link.closest("article.post"));
  });

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-quote-post]");
    if (!link) return;
    var pk = link.dataset.quotePost;
    var text = remembered[pk] || selectionIn(link.closest("article.post"));
    delete remembered[pk];
    var textarea = document.querySelector("#write textarea[name=narration]");
    if (!text || !textarea) return; // the server pre-fills the whole post
    event.preventDefault();
    insertAtCursor(textarea, blockquote(link.dataset.quoteHeader, text));
  });
})();
