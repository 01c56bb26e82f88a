// The page's Content-Security-Policy, computed in the browser before any other script runs.
//
// This file is a classic script, not a module: the Vite plugin contentSecurityPolicy (vite.config.ts)
// inlines it right after <meta charset> in the built index.html, before any other script. It
// reads the page's own URL (and the Perfetto origin the user saved), builds the policy and inserts
// <meta http-equiv="Content-Security-Policy"> so that every fetch, script, worker and frame after
// it is checked. A static meta tag cannot do this: the Perfetto origin (`perfetto=`) and the trace
// URL (`url=`) come from the link, so the allowed origins are only known here. docs/privacy.md
// explains each directive. Keep it free of imports and of anything newer than ES2017.

/** lib/perfetto.ts PERFETTO_ORIGIN_KEY: where the Timeline settings keep a self-hosted Perfetto origin. */
var KINETOSCOPE_PERFETTO_KEY = 'kinetoscope.perfettoOrigin';
var KINETOSCOPE_DEFAULT_PERFETTO = 'https://ui.perfetto.dev';

/** The origin of an absolute http(s) URL, or null (relative, other schemes, unparsable). */
function kinetoscopeHttpOrigin(value, base) {
  if (typeof value !== 'string' || !value) return null;
  try {
    var u = base ? new URL(value, base) : new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    // URL.origin is scheme://host[:port] with the host punycoded: no ';', ',' or spaces can
    // reach the policy through it.
    return u.origin;
  } catch (e) {
    return null;
  }
}

/**
 * The Perfetto UI's address as a CSP source: its origin and, when it is served under a path (a
 * GitHub Pages project site), that path ending in "/", which allows the pages under it. As
 * lib/perfetto.ts checkPerfettoOrigin: a path with characters a policy cannot hold (; , and
 * the like) leaves only the origin, and the app refuses that address anyway.
 */
function kinetoscopePerfettoSource(value) {
  var origin = kinetoscopeHttpOrigin(value);
  if (!origin) return null;
  var u = new URL(value);
  var path = u.pathname.slice(-1) === '/' ? u.pathname : u.pathname + '/';
  return path !== '/' && /^\/[A-Za-z0-9._~%!$&'()*+=:@\/-]*$/.test(path) ? origin + path : origin;
}

/**
 * The policy for a page at `href`, given the Perfetto address saved in the settings (or null).
 * Perfetto: the `perfetto=` parameter wins over the setting, which wins over ui.perfetto.dev.
 * The policy is fixed once the page has started (a CSP can be tightened later, never widened):
 * a new origin saved in the settings is allowed from the next page load on.
 * Trace URLs: the origin of every `url=` parameter may be fetched (connect-src).
 */
function kinetoscopePolicy(href, storedPerfetto) {
  var page = new URL(href);
  // As lib/perfetto.ts choosePerfettoOrigin: a bad perfetto= parameter loads no Perfetto at all
  // (never a silent fall back), so it allows none.
  var param = page.searchParams.get('perfetto');
  var perfetto =
    param != null
      ? kinetoscopePerfettoSource(param.trim()) || "'none'"
      : kinetoscopePerfettoSource(storedPerfetto) || KINETOSCOPE_DEFAULT_PERFETTO;
  var connect = ["'self'"];
  var traces = page.searchParams.getAll('url');
  for (var i = 0; i < traces.length; i++) {
    var o = kinetoscopeHttpOrigin(traces[i], page.href);
    if (o && o !== page.origin && connect.indexOf(o) < 0) connect.push(o);
  }
  return [
    "default-src 'none'",
    // 'wasm-unsafe-eval' compiles the analysis core; the core is built without eval, so no 'unsafe-eval'.
    "script-src 'self' 'wasm-unsafe-eval'",
    // The trace and reader workers and the service worker are files of the site.
    "worker-src 'self'",
    'connect-src ' + connect.join(' '),
    // The timeline embeds Perfetto's UI in an iframe and talks to it with postMessage only.
    'frame-src ' + perfetto,
    "img-src 'self' data: blob:",
    "style-src 'self'",
    "font-src 'self'",
    "manifest-src 'self'",
    "media-src 'none'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'none'",
  ].join('; ');
}

/** Adds the policy to <head> (right after this script, as the parser has not gone further). */
function kinetoscopeApplyPolicy() {
  var stored = null;
  try {
    stored = window.localStorage.getItem(KINETOSCOPE_PERFETTO_KEY);
  } catch (e) {
    // Storage blocked (privacy settings): fall back to the URL and the default.
  }
  var meta = document.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = kinetoscopePolicy(location.href, stored);
  document.head.appendChild(meta);
}
