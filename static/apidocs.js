// Renders the API reference from the OpenAPI document at data-src into
// #api-reference: operations grouped by tag, each with its parameters,
// request body and responses. Built with DOM nodes and textContent only,
// so nothing in the document is ever interpreted as HTML.
(function () {
  "use strict";
  var METHODS = ["get", "post", "put", "patch", "delete", "head"];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function resolve(doc, obj) {
    var seen = 0;
    while (obj && obj.$ref && seen++ < 20) {
      var parts = obj.$ref.replace(/^#\//, "").split("/");
      obj = parts.reduce(function (o, k) { return o ? o[k.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined; }, doc);
    }
    return obj || {};
  }

  // example builds a sample value from a schema, for the body panels.
  function example(doc, schema, depth) {
    schema = resolve(doc, schema);
    if (depth > 6) return null;
    if (schema.example !== undefined) return schema.example;
    if (schema.examples && schema.examples.length) return schema.examples[0];
    var type = Array.isArray(schema.type) ? schema.type.find(function (t) { return t !== "null"; }) : schema.type;
    if (schema.oneOf || schema.anyOf) return example(doc, (schema.oneOf || schema.anyOf)[0], depth + 1);
    if (schema.allOf) {
      var merged = {};
      schema.allOf.forEach(function (s) { Object.assign(merged, example(doc, s, depth + 1)); });
      return merged;
    }
    if (schema.enum) return schema.enum[0];
    if (type === "object" || schema.properties) {
      var out = {};
      Object.keys(schema.properties || {}).forEach(function (k) { out[k] = example(doc, schema.properties[k], depth + 1); });
      return out;
    }
    if (type === "array") return [example(doc, schema.items || {}, depth + 1)];
    if (type === "integer" || type === "number") return 0;
    if (type === "boolean") return false;
    if (schema.format === "date-time") return "2026-01-01T00:00:00Z";
    return type === "string" ? "string" : null;
  }

  function bodyPanel(doc, content) {
    var media = content && (content["application/json"] || content[Object.keys(content)[0]]);
    if (!media) return null;
    return el("pre", null, JSON.stringify(example(doc, media.schema || {}, 0), null, 2));
  }

  function operation(doc, path, method, op) {
    var d = el("details", "api-op");
    d.id = op.operationId || (method + path).replace(/[^A-Za-z0-9]+/g, "-");
    var s = el("summary");
    s.appendChild(el("span", "method method-" + method, method.toUpperCase()));
    s.appendChild(el("span", "api-path", path));
    s.appendChild(el("span", "api-summary", op.summary || ""));
    d.appendChild(s);
    var body = el("div", "api-body");
    if (op.description) body.appendChild(el("p", null, op.description));
    var params = (op.parameters || []).map(function (p) { return resolve(doc, p); });
    if (params.length) {
      body.appendChild(el("h4", null, "Parameters"));
      var t = el("table", "table");
      params.forEach(function (p) {
        var tr = el("tr");
        var name = el("td");
        name.appendChild(el("code", null, p.name));
        tr.appendChild(name);
        tr.appendChild(el("td", "muted", p.in + (p.required ? ", required" : "")));
        tr.appendChild(el("td", null, p.description || ""));
        t.appendChild(tr);
      });
      body.appendChild(t);
    }
    if (op.requestBody) {
      body.appendChild(el("h4", null, "Request body"));
      var rb = bodyPanel(doc, resolve(doc, op.requestBody).content);
      if (rb) body.appendChild(rb);
    }
    Object.keys(op.responses || {}).forEach(function (code) {
      var r = resolve(doc, op.responses[code]);
      body.appendChild(el("h4", null, "Response " + code + (r.description ? " — " + r.description : "")));
      var panel = bodyPanel(doc, r.content);
      if (panel) body.appendChild(panel);
    });
    d.appendChild(body);
    return d;
  }

  function render(root, doc) {
    root.textContent = "";
    var info = doc.info || {};
    var head = el("p", "muted", (info.title || "API") + (info.version ? " · version " + info.version : ""));
    root.appendChild(head);
    var groups = {}, order = [];
    Object.keys(doc.paths || {}).forEach(function (path) {
      var item = doc.paths[path];
      METHODS.forEach(function (m) {
        if (!item[m]) return;
        var tag = (item[m].tags && item[m].tags[0]) || "Endpoints";
        if (!groups[tag]) { groups[tag] = []; order.push(tag); }
        groups[tag].push(operation(doc, path, m, item[m]));
      });
    });
    order.forEach(function (tag) {
      root.appendChild(el("h2", "api-tag", tag));
      groups[tag].forEach(function (op) { root.appendChild(op); });
    });
    root.setAttribute("data-rendered", String(order.reduce(function (n, t) { return n + groups[t].length; }, 0)));
  }

  function load() {
    var root = document.getElementById("api-reference");
    if (!root || root.hasAttribute("data-rendered")) return;
    fetch(root.getAttribute("data-src"), { headers: { Accept: "application/json" } })
      .then(function (res) {
        if (!res.ok) throw new Error("status " + res.status);
        return res.json();
      })
      .then(function (doc) { render(root, doc); })
      .catch(function () {
        root.textContent = "";
        root.appendChild(el("div", "notice notice-info", "This server does not publish its API description (/openapi.json) yet."));
        root.setAttribute("data-rendered", "0");
      });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
  document.addEventListener("htmx:afterSettle", load);
})();
