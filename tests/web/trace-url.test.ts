// Traces opened by URL (web/src/lib/trace-url.ts): which values open, the card's name, the link
// the "paste a URL" field navigates to, and the sentences of a failed download. The accepted
// values must agree with the page's CSP (web/src/csp/policy.js), which allows their origins.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  checkTraceUrl,
  httpErrorMessage,
  linkWithTraceUrl,
  networkErrorMessage,
  sameOrigin,
  traceNameOf,
  traceUrlsOf,
} from '../../web/src/lib/trace-url';

const PAGE = 'https://me.github.io/kinetoscope/?perfetto=http%3A%2F%2F127.0.0.1%3A10000';

describe('checkTraceUrl', () => {
  it('accepts absolute http(s) URLs and URLs relative to the page, as absolute URLs', () => {
    expect(checkTraceUrl(' https://bucket.example.com/runs/rank-0.json.gz?sig=a%2Bb ', PAGE)).toEqual({
      ok: true,
      url: 'https://bucket.example.com/runs/rank-0.json.gz?sig=a%2Bb',
    });
    expect(checkTraceUrl('http://127.0.0.1:8000/t.json', PAGE)).toEqual({ ok: true, url: 'http://127.0.0.1:8000/t.json' });
    expect(checkTraceUrl('samples/rank-0.json.gz', PAGE)).toEqual({ ok: true, url: 'https://me.github.io/kinetoscope/samples/rank-0.json.gz' });
    expect(checkTraceUrl('/other/t.json', PAGE)).toEqual({ ok: true, url: 'https://me.github.io/other/t.json' });
  });

  it('refuses other schemes, empty input, spaces and unparsable text, each with a reason', () => {
    const refused = (v: string) => {
      const c = checkTraceUrl(v, PAGE);
      expect(c.ok, v).toBe(false);
      return c.ok ? '' : c.message;
    };
    expect(refused('javascript:alert(1)')).toBe('Only http and https addresses can be opened, not javascript: ones.');
    expect(refused('ftp://example.com/t.json')).toMatch(/not ftp: ones/);
    expect(refused('file:///home/me/t.json')).toMatch(/not file: ones/);
    expect(refused('data:application/json,{}')).toMatch(/not data: ones/);
    expect(refused('   ')).toBe('Enter the address of a trace (http or https).');
    expect(refused('not a url')).toMatch(/^“not a url” is not a URL: a URL has no spaces/);
    expect(refused('http://[::1')).toBe('“http://[::1” is not a URL.');
  });

  it('accepts exactly the values whose origin the page CSP allows (or the site itself)', () => {
    const src = readFileSync(new URL('../../web/src/csp/policy.js', import.meta.url), 'utf8');
    const policy = new Function(`${src}\nreturn kinetoscopePolicy;`)() as (href: string, stored: string | null) => string;
    const connect = (href: string) => policy(href, null).split(';').map((d) => d.trim().split(/\s+/)).find(([k]) => k === 'connect-src')!.slice(1);
    for (const v of ['https://a.example:8443/x.json.gz', 'http://b.example/y', 'rel/z.json', '//c.example/t.json', 'javascript:alert(1)', 'ftp://d.example/t', 'http://[::1']) {
      const href = `${PAGE}&url=${encodeURIComponent(v)}`;
      const c = checkTraceUrl(v, href);
      const allowed = connect(href);
      if (c.ok) {
        const o = new URL(c.url).origin;
        expect(sameOrigin(c.url, href) || allowed.includes(o), v).toBe(true);
      } else {
        expect(allowed, v).toEqual(["'self'"]);
      }
    }
  });
});

describe('traceUrlsOf', () => {
  it('takes every url= in order, and says which were refused', () => {
    const q = `?url=${encodeURIComponent('https://x.example/a.json')}&perfetto=x&url=samples%2Fb.json.gz&url=${encodeURIComponent('javascript:1')}`;
    const got = traceUrlsOf(q, PAGE);
    expect(got.urls).toEqual(['https://x.example/a.json', 'https://me.github.io/kinetoscope/samples/b.json.gz']);
    expect(got.refused).toEqual(['The url= parameter “javascript:1” was not opened: Only http and https addresses can be opened, not javascript: ones.']);
    expect(traceUrlsOf('?perfetto=x', PAGE)).toEqual({ urls: [], refused: [] });
  });
});

describe('traceNameOf', () => {
  it('is the last path segment, decoded, with nothing stripped', () => {
    expect(traceNameOf('https://b.example/runs/run1/worker0.1623143089861.pt.trace.json.gz?X-Amz-Signature=abc#frag')).toBe('worker0.1623143089861.pt.trace.json.gz');
    expect(traceNameOf('https://b.example/rank%200%20%E2%9C%93.json')).toBe('rank 0 ✓.json');
    expect(traceNameOf('https://b.example/download?id=7')).toBe('download');
    expect(traceNameOf('https://b.example/bad%zz.json')).toBe('bad%zz.json');
  });
  it('falls back to the host name for a URL ending in "/"', () => {
    expect(traceNameOf('https://traces.example.com:8443/')).toBe('traces.example.com');
    expect(traceNameOf('https://traces.example.com/runs/')).toBe('traces.example.com');
  });
});

describe('linkWithTraceUrl', () => {
  it('replaces every url= by the new one and keeps the other parameters and the fragment', () => {
    const page = `https://me.github.io/kinetoscope/?url=${encodeURIComponent('https://old.example/a.json')}&perfetto=${encodeURIComponent('http://127.0.0.1:10000')}&url=b.json#view`;
    const link = new URL(linkWithTraceUrl(page, 'https://new.example/c d.json.gz?sig=1&x=2'));
    expect(link.origin + link.pathname).toBe('https://me.github.io/kinetoscope/');
    expect(link.searchParams.getAll('url')).toEqual(['https://new.example/c d.json.gz?sig=1&x=2']);
    expect(link.searchParams.get('perfetto')).toBe('http://127.0.0.1:10000');
    expect(link.hash).toBe('#view');
  });
});

describe('sameOrigin', () => {
  it('compares scheme, host and port', () => {
    expect(sameOrigin('https://me.github.io/other/t.json', PAGE)).toBe(true);
    expect(sameOrigin('http://me.github.io/t.json', PAGE)).toBe(false);
    expect(sameOrigin('https://me.github.io:444/t.json', PAGE)).toBe(false);
  });
});

describe('messages', () => {
  it('an HTTP error names the status and the URL', () => {
    expect(httpErrorMessage(404, 'Not Found', 'https://b.example/t.json')).toBe('The server answered 404 Not Found for https://b.example/t.json.');
    expect(httpErrorMessage(403, '', 'https://b.example/t.json')).toBe('The server answered 403 for https://b.example/t.json.');
  });
  it('a network error explains CORS, unless the CSP blocked it', () => {
    const url = 'https://b.example/t.json';
    expect(networkErrorMessage(url, false)).toBe(
      'The trace at https://b.example/t.json could not be fetched: the server may not allow this site to read it (CORS: it must send Access-Control-Allow-Origin), or it is unreachable.',
    );
    expect(networkErrorMessage(url, true)).toBe(
      'The trace at https://b.example/t.json could not be fetched: this page may only download from the addresses it was opened with (as ?url=), and the request went elsewhere (the server may have redirected it to another host). Give the final address as ?url= in the link (the "paste a URL" field opens the page that way).',
    );
  });
});
