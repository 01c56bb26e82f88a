import { answerOf, wireOf } from './answer-fixture';
import { describe, expect, it, vi } from 'vitest';
import {
  checkPerfettoOrigin,
  choosePerfettoOrigin,
  DEFAULT_PERFETTO_ORIGIN,
  embeddedUrl,
  newTabUrl,
  scrollMessage,
  traceMessage,
  trimmedFileName,
  windowUs,
} from '../../web/src/lib/perfetto';
import { handshake, NO_ANSWER, WINDOW_CLOSED, type MessageHost, type MessageTarget } from '../../web/src/lib/perfetto-link';

describe('Perfetto address', () => {
  it('accepts http(s) origins, with or without the trailing slash', () => {
    expect(checkPerfettoOrigin('https://ui.perfetto.dev')).toEqual({ ok: true, origin: 'https://ui.perfetto.dev', base: 'https://ui.perfetto.dev/' });
    expect(checkPerfettoOrigin(' https://ui.perfetto.dev/ ')).toEqual({ ok: true, origin: 'https://ui.perfetto.dev', base: 'https://ui.perfetto.dev/' });
    expect(checkPerfettoOrigin('http://127.0.0.1:10000')).toEqual({ ok: true, origin: 'http://127.0.0.1:10000', base: 'http://127.0.0.1:10000/' });
    expect(checkPerfettoOrigin('HTTPS://Perfetto.Example.COM:443/')).toEqual({ ok: true, origin: 'https://perfetto.example.com', base: 'https://perfetto.example.com/' });
  });
  it('accepts a path (Perfetto self-hosted on a GitHub Pages project site): loaded from it, messages to its origin', () => {
    expect(checkPerfettoOrigin('https://org.github.io/perfetto/')).toEqual({ ok: true, origin: 'https://org.github.io', base: 'https://org.github.io/perfetto/' });
    // Without the final slash it is the same folder (GitHub Pages redirects /perfetto to /perfetto/).
    expect(checkPerfettoOrigin('https://org.github.io/perfetto')).toEqual({ ok: true, origin: 'https://org.github.io', base: 'https://org.github.io/perfetto/' });
    expect(checkPerfettoOrigin('http://127.0.0.1:9000/tools/perfetto-v50/')).toMatchObject({ ok: true, base: 'http://127.0.0.1:9000/tools/perfetto-v50/' });
    expect(embeddedUrl('https://org.github.io/perfetto/')).toBe('https://org.github.io/perfetto/#!/?mode=embedded');
    expect(newTabUrl('https://org.github.io/perfetto/')).toBe('https://org.github.io/perfetto/#!/');
  });
  it('refuses other schemes, queries, fragments, credentials, paths a policy cannot name, and non-URLs', () => {
    for (const bad of ['', '  ', 'javascript:alert(1)', 'data:text/html,x', 'ftp://h', 'file:///tmp', 'https://h/?q=1', 'https://h/#!/', 'https://u:p@h', 'https://h/a;script-src/', 'https://h/a,b/', 'ui.perfetto.dev', 'not a url']) {
      expect(checkPerfettoOrigin(bad).ok, bad).toBe(false);
    }
  });
  it('takes perfetto= over the setting over the default; a bad parameter is an error, a bad setting falls back', () => {
    const def = { origin: DEFAULT_PERFETTO_ORIGIN, base: `${DEFAULT_PERFETTO_ORIGIN}/`, source: 'default' };
    expect(choosePerfettoOrigin('', null)).toEqual(def);
    expect(choosePerfettoOrigin('', 'http://localhost:10000/')).toEqual({ origin: 'http://localhost:10000', base: 'http://localhost:10000/', source: 'settings' });
    expect(choosePerfettoOrigin('?perfetto=http%3A%2F%2F127.0.0.1%3A9', 'http://localhost:10000')).toEqual({ origin: 'http://127.0.0.1:9', base: 'http://127.0.0.1:9/', source: 'url' });
    expect(choosePerfettoOrigin('?perfetto=https%3A%2F%2Forg.github.io%2Fperfetto%2F', null)).toEqual({ origin: 'https://org.github.io', base: 'https://org.github.io/perfetto/', source: 'url' });
    const bad = choosePerfettoOrigin('?perfetto=javascript:alert(1)', 'http://localhost:10000');
    expect(bad.origin).toBeNull();
    expect(bad.error).toMatch(/^The perfetto= parameter: /);
    expect(choosePerfettoOrigin('', 'javascript:x')).toEqual(def);
  });
});

describe('Perfetto messages', () => {
  it('embedded and new-tab URLs', () => {
    expect(embeddedUrl('https://ui.perfetto.dev/')).toBe('https://ui.perfetto.dev/#!/?mode=embedded');
    expect(newTabUrl('http://127.0.0.1:9/')).toBe('http://127.0.0.1:9/#!/');
  });
  it('the trace message keeps the API open; the zoom is in seconds of trace time', () => {
    const buf = new ArrayBuffer(3);
    expect(traceMessage(buf, 't', 'f.json')).toEqual({ perfetto: { buffer: buf, title: 't', fileName: 'f.json', keepApiOpen: true } });
    const s = scrollMessage(1682725898686653, 1682725899309581);
    expect(s.perfetto.timeStart).toBe(1682725898.686653);
    expect(s.perfetto.timeEnd).toBe(1682725899.309581);
    expect(s.perfetto.viewPercentage).toBeGreaterThan(0);
    expect(s.perfetto.viewPercentage).toBeLessThanOrEqual(1);
    // Perfetto tells a zoom from a trace by timeStart/timeEnd, and a trace by buffer + title.
    expect('timeStart' in traceMessage(buf, 't', 'f').perfetto).toBe(false);
    expect('buffer' in s.perfetto).toBe(false);
  });
  it('windows in absolute µs, and their errors', () => {
    const steps = [{ name: '7', start_us: 1000, end_us: 2000 }];
    expect(windowUs({ kind: 'step', index: 0 }, steps, 500)).toEqual({ ok: true, startUs: 1000, endUs: 2000, label: 'step 7' });
    expect(windowUs({ kind: 'step', index: 3 }, steps, 500).ok).toBe(false);
    expect(windowUs({ kind: 'range', fromMs: 1, toMs: 2.5 }, steps, 500)).toEqual({ ok: true, startUs: 1500, endUs: 3000, label: '1–2.5 ms' });
    expect(windowUs({ kind: 'range', fromMs: 2, toMs: 2 }, steps, 500).ok).toBe(false);
    expect(windowUs({ kind: 'range', fromMs: -1, toMs: 2 }, steps, 500).ok).toBe(false);
    expect(windowUs({ kind: 'range', fromMs: NaN, toMs: 2 }, steps, 500).ok).toBe(false);
    expect(windowUs({ kind: 'range', fromMs: 0, toMs: 2 }, steps, null).ok).toBe(false);
  });
  it('names trimmed copies after the file and the window', () => {
    expect(trimmedFileName('rank-0.json.gz', 'step 551')).toBe('rank-0.step-551.json');
    expect(trimmedFileName('dir/w0.1623.pt.trace.json', '1–2.5 ms')).toBe('w0.1623.1-2.5-ms.json');
  });
});

class Host implements MessageHost {
  listeners = new Set<(ev: MessageEvent) => void>();
  addEventListener(_t: 'message', l: (ev: MessageEvent) => void) {
    this.listeners.add(l);
  }
  removeEventListener(_t: 'message', l: (ev: MessageEvent) => void) {
    this.listeners.delete(l);
  }
  emit(data: unknown, origin: string, source: unknown) {
    for (const l of [...this.listeners]) l({ data, origin, source } as MessageEvent);
  }
}

class Target implements MessageTarget {
  sent: [unknown, string][] = [];
  closed = false;
  postMessage(m: unknown, o: string) {
    this.sent.push([m, o]);
  }
}

describe('handshake', () => {
  it('pings until that window answers PONG from that origin, then stops', async () => {
    vi.useFakeTimers();
    const host = new Host();
    const t = new Target();
    let done = false;
    const hs = handshake(() => t, 'https://p.dev', host, { intervalMs: 50, timeoutMs: 15_000 });
    void hs.promise.then(() => (done = true));
    vi.advanceTimersByTime(200);
    expect(t.sent.length).toBeGreaterThanOrEqual(4);
    expect(t.sent.every(([m, o]) => m === 'PING' && o === '*')).toBe(true);
    host.emit('PONG', 'https://evil.example', t); // wrong origin
    host.emit('PONG', 'https://p.dev', {}); // another window
    host.emit('PING', 'https://p.dev', t);
    await Promise.resolve();
    expect(done).toBe(false);
    host.emit('PONG', 'https://p.dev', t);
    await hs.promise;
    const n = t.sent.length;
    vi.advanceTimersByTime(1000);
    expect(t.sent.length).toBe(n);
    expect(host.listeners.size).toBe(0);
    vi.useRealTimers();
  });
  it('gives up after the timeout, and when the tab is closed', async () => {
    vi.useFakeTimers();
    const host = new Host();
    const hs = handshake(() => new Target(), 'https://p.dev', host, { intervalMs: 50, timeoutMs: 15_000 });
    const err = hs.promise.catch((e: Error) => e);
    vi.advanceTimersByTime(15_001);
    expect(((await err) as Error).name).toBe(NO_ANSWER);
    expect(((await err) as Error).message).toMatch(/did not answer within 15 s/);
    const t = new Target();
    const hs2 = handshake(() => t, 'https://p.dev', host, { intervalMs: 50, timeoutMs: 15_000 });
    const err2 = hs2.promise.catch((e: Error) => e);
    t.closed = true;
    vi.advanceTimersByTime(60);
    expect(((await err2) as Error).name).toBe(WINDOW_CLOSED);
    expect(host.listeners.size).toBe(0);
    vi.useRealTimers();
  });
});

describe('TraceClient.trim', () => {
  it('sends a typed trim request and settles with the trimmed bytes of its id, progress in between', async () => {
    const { TraceClient } = await import('../../web/src/worker/protocol');
    const sent: unknown[] = [];
    let deliver: (ev: MessageEvent) => void = () => {};
    const c = new TraceClient({ postMessage: (m) => sent.push(m), addEventListener: (_t, l) => (deliver = l) });
    const file = new File([new Uint8Array([1])], 'a.json');
    const progress: number[] = [];
    const call = c.trim(file, 10, 20, (p) => progress.push(p.bytesRead));
    expect(sent).toEqual([{ kind: 'trim', id: call.id, file, startUs: 10, endUs: 20 }]);
    deliver({ data: { kind: 'progress', id: call.id, progress: { bytesRead: 5, totalBytes: 9, decodedBytes: 5, elapsedMs: 1 } } } as MessageEvent);
    const bytes = new Uint8Array([123, 125]);
    const report = wireOf(answerOf('trim', { window_start_us: 10, window_end_us: 20, kept_events: 1, total_events: 3, bytes: 2, input_error: '', rows: [{ kind: 'duration', kept: 1, dropped: 2 }] }));
    deliver({ data: { kind: 'trimmed', id: call.id, trimmed: { bytes, report } } } as MessageEvent);
    expect(await call.promise).toEqual({ bytes, report });
    expect(progress).toEqual([5]);
  });
});
