// Folio's analytics chart: each bar's numbers on hover, tap and keyboard
// focus. The page draws the chart; every bar (g.bucket) carries its numbers
// in data-* attributes. One bar is in the tab order; arrow keys, Home and
// End move between bars. Listeners sit on the document, so a page that
// htmx swaps in works without loading this twice.
(function () {
  "use strict";
  if (window.folioChart) return;
  window.folioChart = true;

  function fmt(n) { return Number(n).toLocaleString("en-US"); }

  function row(tip, cls, label, value) {
    var p = document.createElement("p");
    p.className = "tip-row " + cls;
    var l = document.createElement("span");
    l.textContent = label;
    var v = document.createElement("strong");
    v.textContent = fmt(value);
    p.append(l, v);
    tip.append(p);
  }

  function show(bar) {
    var body = bar.closest(".chart-body");
    var tip = body && body.querySelector(".chart-tip");
    if (!tip) return;
    body.querySelectorAll(".bucket.current").forEach(function (b) { b.classList.remove("current"); });
    bar.classList.add("current");
    var d = bar.dataset;
    tip.textContent = "";
    var h = document.createElement("p");
    h.className = "tip-label";
    h.textContent = d.label;
    tip.append(h);
    row(tip, "tip-total", "Unique visitors", d.total);
    row(tip, "tip-human", "Human", d.human);
    row(tip, "tip-ai", "AI agents", d.ai);
    tip.hidden = false;
    var hit = bar.querySelector(".hit").getBoundingClientRect();
    var box = body.getBoundingClientRect();
    var x = hit.left + hit.width / 2 - box.left;
    var left = Math.max(0, Math.min(box.width - tip.offsetWidth, x - tip.offsetWidth / 2));
    tip.style.left = left + "px";
  }

  function hide(body) {
    var tip = body && body.querySelector(".chart-tip");
    if (!tip) return;
    tip.hidden = true;
    body.querySelectorAll(".bucket.current").forEach(function (b) { b.classList.remove("current"); });
  }

  function bucket(ev) { return ev.target.closest && ev.target.closest("#visitors-chart .bucket"); }

  document.addEventListener("mouseover", function (ev) {
    var bar = bucket(ev);
    if (bar) show(bar);
  });
  document.addEventListener("mouseout", function (ev) {
    var bar = bucket(ev);
    if (bar && !(ev.relatedTarget && ev.relatedTarget.closest && ev.relatedTarget.closest("#visitors-chart .bucket")) && document.activeElement !== bar) {
      hide(bar.closest(".chart-body"));
    }
  });
  document.addEventListener("focusin", function (ev) {
    var bar = bucket(ev);
    if (bar) show(bar);
  });
  document.addEventListener("focusout", function (ev) {
    var bar = bucket(ev);
    if (bar && !(ev.relatedTarget && ev.relatedTarget.closest && ev.relatedTarget.closest("#visitors-chart .bucket"))) {
      hide(bar.closest(".chart-body"));
    }
  });
  // A tap shows a bar's numbers (and keeps them); a tap elsewhere hides them.
  document.addEventListener("click", function (ev) {
    var bar = bucket(ev);
    if (bar) {
      show(bar);
      return;
    }
    document.querySelectorAll(".chart-body").forEach(function (b) {
      if (!b.contains(ev.target)) hide(b);
    });
  });
  document.addEventListener("keydown", function (ev) {
    var bar = bucket(ev);
    if (!bar) return;
    var bars = Array.prototype.slice.call(bar.parentNode.querySelectorAll(".bucket"));
    var i = bars.indexOf(bar), next = -1;
    switch (ev.key) {
      case "ArrowLeft": case "ArrowDown": next = Math.max(0, i - 1); break;
      case "ArrowRight": case "ArrowUp": next = Math.min(bars.length - 1, i + 1); break;
      case "Home": next = 0; break;
      case "End": next = bars.length - 1; break;
      case "Escape": hide(bar.closest(".chart-body")); return;
      default: return;
    }
    ev.preventDefault();
    bars.forEach(function (b, k) { b.setAttribute("tabindex", k === next ? "0" : "-1"); });
    bars[next].focus();
  });
})();
