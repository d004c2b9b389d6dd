// Folio's Cloudflare Worker, for docs whose host has no drain: put it on the
// docs' route (docs.example.com/*). It passes every request through as it is
// and, once the answer is on its way, reports a page read to Folio's events
// API, so the AI agents that run no JavaScript are counted too. It batches
// nothing and never delays the page: the report runs after the answer
// (waitUntil), and its failure is the report's alone.
//
// Variables: FOLIO_URL (Folio's base URL), FOLIO_PROJECT (the project id),
// FOLIO_KEY (an ingest key, kept as a secret: wrangler secret put FOLIO_KEY);
// ORIGIN, optional, sends the requests on to another origin than the route's.
export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    const upstream = env.ORIGIN ? new Request(new URL(url.pathname + url.search, env.ORIGIN), request) : request;
    const response = await fetch(upstream);
    const userAgent = request.headers.get("User-Agent");
    const ip = request.headers.get("CF-Connecting-IP");
    if (request.method === "GET" && response.ok && isPage(response) && userAgent && ip) {
      const event = { path: url.pathname, timestamp: new Date().toISOString(), userAgent, ip };
      const accept = request.headers.get("Accept");
      const referrer = request.headers.get("Referer");
      if (accept) event.accept = accept;
      if (referrer) event.referrer = referrer;
      ctx.waitUntil(
        fetch(`${env.FOLIO_URL}/v1/analytics/${env.FOLIO_PROJECT}/events`, {
          method: "POST",
          headers: { Authorization: `Bearer ${env.FOLIO_KEY}`, "Content-Type": "application/json" },
          body: JSON.stringify({ events: [event] }),
        }).catch(() => {}),
      );
    }
    return response;
  },
};

// isPage tells a page (HTML, Markdown, or plain text such as llms.txt) from
// the assets it loads.
function isPage(response) {
  const type = (response.headers.get("Content-Type") || "").split(";")[0].trim().toLowerCase();
  return type === "text/html" || type === "text/markdown" || type === "text/x-markdown" || type === "text/plain";
}
