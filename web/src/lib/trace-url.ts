// Traces opened from a URL: which values are accepted, what the card is called, the link that
// opens one, and the sentences that explain a failed download. Pure functions; the fetch itself is
// lib/fetch-trace.ts.
//
// The page's Content-Security-Policy (csp/policy.js) is computed once, at page load, from the
// link's `url=` parameters: only their origins (and the site's own) may be fetched. So a URL
// pasted into the page is opened by loading the page again with it as `?url=`, unless it is on the
// site's own origin, which the policy always allows.

export type UrlCheck = { ok: true; url: string } | { ok: false; message: string };

/**
 * An http(s) URL, absolute or relative to the page at `base`, as the absolute URL to fetch.
 * Accepts exactly what csp/policy.js accepts for a `url=` parameter (it resolves against the page
 * too), minus values with spaces inside: those are far more likely a pasted sentence than a path.
 */
export function checkTraceUrl(text: string, base: string): UrlCheck {
  const value = text.trim();
  if (!value) return { ok: false, message: 'Enter the address of a trace (http or https).' };
  if (/\s/.test(value)) return { ok: false, message: `“${value}” is not a URL: a URL has no spaces (write them as %20).` };
  let u: URL;
  try {
    u = new URL(value, base);
  } catch {
    return { ok: false, message: `“${value}” is not a URL.` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return { ok: false, message: `Only http and https addresses can be opened, not ${u.protocol} ones.` };
  }
  return { ok: true, url: u.href };
}

/** The `url=` parameters of the page's query, checked: the URLs to open and what was refused. */
export function traceUrlsOf(search: string, base: string): { urls: string[]; refused: string[] } {
  const urls: string[] = [];
  const refused: string[] = [];
  for (const v of new URLSearchParams(search).getAll('url')) {
    const c = checkTraceUrl(v, base);
    if (c.ok) urls.push(c.url);
    else refused.push(`The url= parameter “${v}” was not opened: ${c.message}`);
  }
  return { urls, refused };
}

/**
 * The card's name for a trace at `url`: its last path segment, decoded ("rank%200.json.gz" ->
 * "rank 0.json.gz"), else its host name (a URL ending in "/"). Nothing else is stripped: the name
 * is what the person sees in the link.
 */
export function traceNameOf(url: string): string {
  const u = new URL(url);
  const last = u.pathname.split('/').pop() ?? '';
  if (!last) return u.hostname || u.host || url;
  try {
    return decodeURIComponent(last);
  } catch {
    return last; // a stray "%" that is not an escape: show the segment as written
  }
}

/** Whether the page (at `pageHref`) may fetch `url` without loading again: its own origin. */
export function sameOrigin(url: string, pageHref: string): boolean {
  return new URL(url).origin === new URL(pageHref).origin;
}

/**
 * The page's link with `url` as its one `url=` parameter: other `url=` parameters are dropped
 * (the new link opens that trace, not the old ones again), every other parameter (`perfetto=`)
 * and the fragment are kept.
 */
export function linkWithTraceUrl(pageHref: string, url: string): string {
  const u = new URL(pageHref);
  u.searchParams.delete('url');
  u.searchParams.append('url', url);
  return u.href;
}

/** "The server answered 404 Not Found for <url>." (HTTP/2 sends no reason phrase: the code alone.) */
export function httpErrorMessage(status: number, statusText: string, url: string): string {
  const reason = statusText.trim();
  return `The server answered ${status}${reason ? ` ${reason}` : ''} for ${url}.`;
}

/**
 * Why a fetch rejected with a network error. From JavaScript a CORS refusal, an unreachable host
 * and a Content-Security-Policy block all look alike (a TypeError); only the last also fires a
 * `securitypolicyviolation` event (`cspBlocked`). As the policy allows the origin of every url=
 * it was loaded with, a block there means the server redirected the request to another origin
 * (the event names the URL asked for, not where it was sent).
 */
export function networkErrorMessage(url: string, cspBlocked: boolean): string {
  if (cspBlocked) {
    return (
      `The trace at ${url} could not be fetched: this page may only download from the addresses it was opened ` +
      `with (as ?url=), and the request went elsewhere (the server may have redirected it to another host). ` +
      `Give the final address as ?url= in the link (the "paste a URL" field opens the page that way).`
    );
  }
  return (
    `The trace at ${url} could not be fetched: the server may not allow this site to read it ` +
    `(CORS: it must send Access-Control-Allow-Origin), or it is unreachable.`
  );
}
