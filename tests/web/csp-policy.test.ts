// The page's Content-Security-Policy (web/src/csp/policy.js, inlined as a classic script by the
// build): the origins it allows for each link, and that it agrees with the app's Perfetto choice.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { choosePerfettoOrigin } from '../../web/src/lib/perfetto';

const src = readFileSync(new URL('../../web/src/csp/policy.js', import.meta.url), 'utf8');
const policy = new Function(`${src}\nreturn kinetoscopePolicy;`)() as (href: string, stored: string | null) => string;

const directives = (p: string) =>
  Object.fromEntries(p.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
const at = (query: string, stored: string | null = null) =>
  directives(policy(`https://me.github.io/kinetoscope/${query}`, stored));

describe('CSP policy', () => {
  it('allows only the site, wasm compilation and ui.perfetto.dev by default', () => {
    const d = at('');
    expect(d['default-src']).toEqual(["'none'"]);
    expect(d['script-src']).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(d['connect-src']).toEqual(["'self'"]);
    expect(d['worker-src']).toEqual(["'self'"]);
    expect(d['frame-src']).toEqual(['https://ui.perfetto.dev']);
    expect(Object.values(d).flat()).not.toContain("'unsafe-eval'");
    expect(Object.values(d).flat()).not.toContain("'unsafe-inline'");
  });

  it('adds the origin of each ?url=, once, and never a relative or same-origin one twice', () => {
    const q = '?url=' + encodeURIComponent('https://bucket.example.com:8443/runs/a.json.gz?sig=1') +
      '&url=' + encodeURIComponent('https://bucket.example.com:8443/runs/b.json') +
      '&url=' + encodeURIComponent('samples/rank-0.json.gz') +
      '&url=' + encodeURIComponent('http://other.example/x.json');
    expect(at(q)['connect-src']).toEqual(["'self'", 'https://bucket.example.com:8443', 'http://other.example']);
  });

  it('never lets a parameter add a directive or another scheme', () => {
    for (const bad of ["javascript:alert(1)", "data:text/plain,x", "https://a.example; script-src *", "x 'unsafe-eval'", '']) {
      const d = at(`?url=${encodeURIComponent(bad)}`);
      expect(d['connect-src'].every((s: string) => s === "'self'" || /^https?:\/\/[^\s;,']+$/.test(s))).toBe(true);
      expect(d['script-src']).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    }
    // The URL parser keeps only scheme, host and port: the "; script-src *" never survives.
    expect(at(`?perfetto=${encodeURIComponent('https://a.example/; script-src *')}`)['script-src']).toEqual(["'self'", "'wasm-unsafe-eval'"]);
  });

  it('frames exactly the Perfetto origin the app chooses (parameter, then setting, then default)', () => {
    const cases: [string, string | null][] = [
      ['', null],
      ['', 'https://perfetto.corp.example'],
      ['', 'not a url'],
      ['?perfetto=' + encodeURIComponent('http://127.0.0.1:10000'), 'https://perfetto.corp.example'],
      ['?perfetto=' + encodeURIComponent('https://perfetto.corp.example/'), null],
      ['?perfetto=' + encodeURIComponent('ftp://x'), null],
      ['?perfetto=', 'https://perfetto.corp.example'],
      ['?perfetto=' + encodeURIComponent('https://org.github.io/perfetto/'), null],
      ['?perfetto=' + encodeURIComponent('https://org.github.io/perfetto'), null],
      ['', 'https://org.github.io/tools/perfetto/'],
    ];
    for (const [query, stored] of cases) {
      const app = choosePerfettoOrigin(query, stored);
      // The frame loads app.base: a path ends in "/", so the policy allows that folder. A root
      // address is named by its origin alone (the same pages).
      const want = app.base == null ? "'none'" : app.base === `${app.origin}/` ? app.origin : app.base;
      expect(at(query, stored)['frame-src'], `${query} / ${stored}`).toEqual([want]);
    }
    // A path the policy cannot hold leaves only the origin (and the app refuses the address).
    expect(at('?perfetto=' + encodeURIComponent('https://h.example/a;b/'))['frame-src']).toEqual(['https://h.example']);
  });
});
