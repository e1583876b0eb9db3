// A scheduling poll's moments in the reader's own time zone: each <time data-local-time>
// carries the moment with its offset (datetime="2026-12-10T19:00:00+01:00") and, as its text,
// the site's time with the site's zone, which stays for a browser without JavaScript. Here
// the text becomes the browser's local time, with its zone named; the site's text stays as
// the element's title.
(function () {
  "use strict";
  function zoneName() {
    try {
      return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    } catch (error) {
      return "";
    }
  }
  function rewrite(root) {
    var language = document.documentElement.lang || undefined;
    var zone = zoneName();
    var format = new Intl.DateTimeFormat(language, {
      weekday: "long", day: "numeric", month: "long", year: "numeric",
      hour: "2-digit", minute: "2-digit"
    });
    root.querySelectorAll("time[data-local-time]").forEach(function (element) {
      var moment = new Date(element.getAttribute("datetime"));
      if (isNaN(moment.getTime()) || element.hasAttribute("data-local-done")) { return; }
      element.title = element.textContent;
      element.textContent = format.format(moment) + (zone ? " (" + zone + ")" : "");
      element.setAttribute("data-local-done", "");
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { rewrite(document); });
  } else {
    rewrite(document);
  }
})();
