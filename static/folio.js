// Folio analytics tracker. Usage:
//   <script defer src="{base}/js/folio.js" data-project="{projectId}"></script>
// No cookies, no storage: it reports the path and referrer of each page view
// (and the first page's utm_source),
// including single-page-app navigations through the history API.
//
// A site with its own search box or feedback buttons reports them with
//   folio.search(query, hits)        a search, and how many results it showed
//   folio.searchClick(query, path)   a result opened from that search
//   folio.feedback({helpful, comment, contact, source, code, filename, lang})
// and data-feedback on the script tag adds a "Was this page helpful?" widget
// at the end of the page's <main> (or inside the element data-feedback names
// by a CSS selector), themable with the --folio-feedback-* CSS variables.
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script) return;
  var project = script.getAttribute("data-project");
  var endpoint = new URL("/api/event", script.src).href;
  var maxTerm = 200;

  // JSON sent as text/plain is a simple request: no CORS preflight. As the
  // page goes away (unloading), the browser's beacon carries the event.
  var unloading = false;
  function post(body) {
    body.project = project;
    var data = JSON.stringify(body);
    if (unloading && navigator.sendBeacon) {
      return Promise.resolve(navigator.sendBeacon(endpoint, data));
    }
    try {
      return fetch(endpoint, {
        method: "POST",
        keepalive: true,
        credentials: "omit",
        headers: { "Content-Type": "text/plain;charset=UTF-8" },
        body: data
      }).then(function (r) { return r.ok; }, function () { return false; });
    } catch (e) {
      return Promise.resolve(false);
    }
  }

  // Page views.
  var last = null;
  function send() {
    var path = location.pathname;
    if (path === last) return;
    var referrer = last === null ? document.referrer : location.origin + last;
    // The first page keeps its utm_source (ChatGPT marks its links so, and
    // often sends no referrer); nothing else of the query leaves the page.
    var utm = last === null && /[?&]utm_source=([^&#]*)/.exec(location.search);
    if (last !== null) pathChanged();
    last = path;
    post({ path: utm ? path + "?utm_source=" + utm[1] : path, referrer: referrer });
  }

  // Searches: a search box asks as the reader types, so a search waits a
  // second and a newer one replaces it; a result opened, or leaving the
  // page, sends it at once.
  var pending = null, timer = null, lastTerm = "";
  function term(q) { return String(q == null ? "" : q).trim().slice(0, maxTerm); }
  function flushSearch() {
    clearTimeout(timer);
    if (pending) post(pending);
    pending = null;
  }
  function search(query, hits) {
    var q = term(query), n = Number(hits);
    if (!q || !(n >= 0) || Math.floor(n) !== n) return;
    lastTerm = q;
    pending = { type: "search", query: q, hits: n };
    clearTimeout(timer);
    timer = setTimeout(flushSearch, 1000);
  }
  function searchClick(query, path) {
    flushSearch();
    var q = term(query) || lastTerm;
    if (!q || path == null) return;
    var u;
    try { u = new URL(String(path), location.href); } catch (e) { return; }
    post({ type: "searchClick", query: q, path: u.pathname });
  }

  // Feedback, from the widget or the site's own buttons.
  function feedback(f) {
    f = f || {};
    var body = { type: "feedback", path: f.path || location.pathname, source: f.source || (f.comment || f.contact ? "contextual" : "thumbs_only") };
    if (typeof f.helpful === "boolean") body.helpful = f.helpful;
    ["comment", "contact", "code", "filename", "lang"].forEach(function (k) {
      if (f[k]) body[k] = String(f[k]);
    });
    return post(body);
  }

  window.folio = { search: search, searchClick: searchClick, feedback: feedback };

  // The "Was this page helpful?" widget, in a shadow root so the site's
  // styles do not reach it; the CSS variables do.
  var widgetAt = script.getAttribute("data-feedback");
  var question = script.getAttribute("data-feedback-question") || "Was this page helpful?";
  var widget = null;
  var css =
    ":host{display:block;margin:2rem 0 1rem;font:var(--folio-feedback-font,inherit);color:var(--folio-feedback-color,inherit)}" +
    ".box{background:var(--folio-feedback-background,transparent);border:1px solid var(--folio-feedback-border,#8a8f98);border-radius:var(--folio-feedback-radius,8px);padding:1rem}" +
    "h2{font-size:1rem;font-weight:600;margin:0 0 .75rem}" +
    ".choices{display:flex;gap:.5rem;flex-wrap:wrap}" +
    "button{font:inherit;color:inherit;background:var(--folio-feedback-button-background,transparent);border:1px solid var(--folio-feedback-border,#8a8f98);border-radius:var(--folio-feedback-radius,8px);padding:.4rem 1rem;cursor:pointer;min-height:2.5rem}" +
    "button[aria-pressed=true],button.send{background:var(--folio-feedback-accent,#1d4ed8);color:var(--folio-feedback-accent-text,#fff);border-color:var(--folio-feedback-accent,#1d4ed8)}" +
    "button:focus-visible,textarea:focus-visible,input:focus-visible{outline:3px solid var(--folio-feedback-focus,var(--folio-feedback-accent,#1d4ed8));outline-offset:2px}" +
    "form{margin-top:1rem;display:grid;gap:.5rem}form[hidden]{display:none}" +
    "label{font-weight:600}" +
    "textarea,input{font:inherit;color:inherit;background:var(--folio-feedback-field-background,transparent);border:1px solid var(--folio-feedback-border,#8a8f98);border-radius:var(--folio-feedback-radius,8px);padding:.5rem;width:100%;box-sizing:border-box}" +
    "textarea{min-height:5rem;resize:vertical}" +
    ".actions{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:.25rem}" +
    ".status:empty{display:none}.status{margin:.75rem 0 0}";

  function mountWidget() {
    if (widgetAt === null || widget) return;
    var parent = null;
    if (widgetAt && widgetAt !== "true") {
      try { parent = document.querySelector(widgetAt); } catch (e) {}
    }
    parent = parent || document.querySelector("main") || document.body;
    var host = document.createElement("folio-feedback");
    host.setAttribute("data-folio-feedback", "");
    var root = host.attachShadow({ mode: "open" });
    if (root.adoptedStyleSheets && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      root.adoptedStyleSheets = [sheet];
    } else {
      var style = document.createElement("style");
      style.textContent = css;
      root.appendChild(style);
    }
    var id = "folio-feedback-" + Math.random().toString(36).slice(2);
    root.innerHTML +=
      '<section class="box" aria-labelledby="' + id + '-q">' +
      '<h2 id="' + id + '-q"></h2>' +
      '<div class="choices" role="group" aria-labelledby="' + id + '-q">' +
      '<button type="button" data-helpful="true" aria-pressed="false">Yes</button>' +
      '<button type="button" data-helpful="false" aria-pressed="false">No</button>' +
      "</div>" +
      '<form hidden novalidate>' +
      '<label for="' + id + '-c"></label>' +
      '<textarea id="' + id + '-c" name="comment" maxlength="2000"></textarea>' +
      '<label for="' + id + '-e">E-mail, if you would like an answer (optional)</label>' +
      '<input id="' + id + '-e" name="contact" type="email" autocomplete="email" maxlength="254">' +
      '<div class="actions"><button type="submit" class="send">Send feedback</button><button type="button" class="skip">No, thanks</button></div>' +
      "</form>" +
      '<p class="status" role="status"></p>' +
      "</section>";
    root.querySelector("h2").textContent = question;
    parent.appendChild(host);
    widget = { host: host, root: root, path: location.pathname, helpful: null, sent: false };
    var form = root.querySelector("form"), status = root.querySelector(".status");
    var comment = root.querySelector("textarea"), contact = root.querySelector("input");
    root.querySelectorAll("button[data-helpful]").forEach(function (b) {
      b.addEventListener("click", function () {
        if (widget.sent) return;
        widget.helpful = b.getAttribute("data-helpful") === "true";
        root.querySelectorAll("button[data-helpful]").forEach(function (o) {
          o.setAttribute("aria-pressed", String(o === b));
        });
        root.querySelector("label[for='" + id + "-c']").textContent = widget.helpful
          ? "What did you find helpful? (optional)"
          : "What could be better? (optional)";
        form.hidden = false;
        status.textContent = "Thank you. Tell us more below, or choose No, thanks.";
        comment.focus();
      });
    });
    function finish(withText) {
      if (widget.sent || widget.helpful === null) return;
      var f = { helpful: widget.helpful, path: widget.path };
      if (withText) {
        if (contact.value && !contact.checkValidity()) {
          status.textContent = "Please enter an e-mail address such as ada@example.com, or leave it empty.";
          contact.setAttribute("aria-invalid", "true");
          contact.focus();
          return;
        }
        contact.removeAttribute("aria-invalid");
        f.comment = comment.value.trim();
        f.contact = contact.value.trim();
      }
      widget.sent = true;
      form.hidden = true;
      root.querySelectorAll("button[data-helpful]").forEach(function (o) { o.disabled = true; });
      status.textContent = "Sending…";
      feedback(f).then(function (ok) {
        status.textContent = ok ? "Thank you for your feedback." : "Your feedback could not be sent. Please try again later.";
        if (!ok) {
          widget.sent = false;
          form.hidden = false;
          root.querySelectorAll("button[data-helpful]").forEach(function (o) { o.disabled = false; });
        }
      });
      // The button pressed is gone: focus stays in the widget, on what it says.
      status.setAttribute("tabindex", "-1");
      status.focus();
    }
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      finish(true);
    });
    root.querySelector(".skip").addEventListener("click", function () { finish(false); });
    widget.finish = finish;
  }

  // A rating given but neither sent nor skipped is sent as the reader
  // leaves the page (or the single-page app moves on), without text; a
  // tab merely hidden keeps it open, as the reader may come back to it.
  function leaving() {
    flushSearch();
    if (widget && widget.finish) widget.finish(false);
  }
  function pathChanged() {
    leaving();
    if (widget) {
      widget.host.remove();
      widget = null;
      mountWidget();
    }
  }
  addEventListener("pagehide", function () {
    unloading = true;
    leaving();
  });
  addEventListener("pageshow", function () { unloading = false; });
  document.addEventListener("visibilitychange", function () {
    unloading = document.visibilityState === "hidden";
    if (unloading) flushSearch();
  });

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
  if (widgetAt !== null) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountWidget);
    else mountWidget();
  }
})();
