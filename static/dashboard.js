// Folio dashboard behaviour that htmx does not cover: copy buttons.
// A button with data-copy="ID" copies the text of the element with that id.
(function () {
  "use strict";
  function copied(button) {
    var label = button.textContent;
    button.textContent = "Copied";
    button.classList.add("copied");
    setTimeout(function () { button.textContent = label; button.classList.remove("copied"); }, 1500);
  }
  function fallback(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    try { return document.execCommand("copy"); } catch (e) { return false; }
  }
  document.addEventListener("click", function (ev) {
    var button = ev.target.closest("[data-copy]");
    if (!button) return;
    var el = document.getElementById(button.getAttribute("data-copy"));
    if (!el) return;
    var text = el.textContent.trim();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { copied(button); }, function () { if (fallback(el)) copied(button); });
    } else if (fallback(el)) {
      copied(button);
    }
  });
})();
