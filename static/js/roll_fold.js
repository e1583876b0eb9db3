// A post's long run of rolls is folded (templates/rolls/roll_fold.html); two things the
// server cannot do for it, as it never sees the page's address fragment or what the reader
// unfolded:
// - an old link to a roll in the diary (…/#roll-N) whose roll is folded asks the page again
//   with ?roll=N, which unfolds the run around it (the link the site writes now has it);
// - the live update keeps an unfolded fold as it was (hx-preserve); when newer rolls pushed
//   some of the shown ones into the fold meanwhile, those are loaded into it here, so none
//   goes missing between the fold and the shown rolls.
(function () {
  "use strict";

  var linked = /^#roll-(\d+)$/.exec(window.location.hash);
  if (linked && !document.getElementById("roll-" + linked[1])) {
    var url = new URL(window.location.href);
    if (!url.searchParams.has("roll")) {
      url.searchParams.set("roll", linked[1]);
      window.location.replace(url.toString());
    }
  }

  function fillGaps() {
    document.querySelectorAll(".roll-fold[data-before]").forEach(function (fold) {
      var next = fold.nextElementSibling;
      var shown = next && /^roll-(\d+)$/.exec(next.id || "");
      if (!shown) return;
      var before = Number(fold.dataset.before);
      var first = Number(shown[1]);
      if (!(first > before) || !window.htmx) return;
      fold.dataset.before = String(first);
      var gap = document.createElement("p");
      gap.className = "roll-more";
      fold.appendChild(gap);
      window.htmx.ajax("GET", fold.dataset.url + "?after=" + (before - 1) + "&before=" + first, {
        target: gap,
        swap: "outerHTML",
      });
    });
  }

  document.addEventListener("htmx:afterSettle", fillGaps);
})();
