// Folio analytics tracker. Usage:
//   <script defer src="{base}/js/folio.js" data-project="{projectId}"></script>
// No cookies, no storage: it reports the path and referrer of each page view,
// including single-page-app navigations through the history API.
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script) return;
  var project = script.getAttribute("data-project");
  var endpoint = new URL("/api/event", script.src).href;
  var last = null;
  function send() {
    var path = location.pathname;
    if (path === last) return;
    var referrer = last === null ? document.referrer : location.origin + last;
    last = path;
    try {
      fetch(endpoint, {
        method: "POST",
        keepalive: true,
        credentials: "omit",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ project: project, path: path, referrer: referrer })
      }).catch(function () {});
    } catch (e) {}
  }
  ["pushState", "replaceState"].forEach(function (name) {
    var original = history[name];
    history[name] = function () {
      var result = original.apply(this, arguments);
      send();
      return result;
    };
  });
  addEventListener("popstate", send);
  if (document.visibilityState === "prerender") {
    document.addEventListener("visibilitychange", send, { once: true });
  } else {
    send();
  }
})();
