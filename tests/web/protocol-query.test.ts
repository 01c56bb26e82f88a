import { describe, expect, it } from 'vitest';
import { RemoteError, SESSION_GONE, TraceClient, type Endpoint, type Request, type Response } from '../../web/src/worker/protocol';

class FakeWorker implements Endpoint {
  sent: Request[] = [];
  private listeners: ((ev: MessageEvent) => void)[] = [];
  postMessage(m: unknown) {
    this.sent.push(m as Request);
  }
  addEventListener(_t: 'message', l: (ev: MessageEvent) => void) {
    this.listeners.push(l);
  }
  reply(r: Response) {
    for (const l of this.listeners) l({ data: r } as MessageEvent);
  }
}

import { answerOf, wireOf } from './answer-fixture';

const answer = wireOf(answerOf('operators', { group_by: 'op', show_gpu: false, rows: [] }));
const stacks = wireOf(answerOf('operator_detail', { rows: [], stack_source: 'none', no_stack: [] }));
const kernels = wireOf(answerOf('operator_kernels', { rows: [] }));

describe('TraceClient queries', () => {
  it('sends a typed query for a session and settles it with the answer of its id', async () => {
    const w = new FakeWorker();
    const c = new TraceClient(w);
    const a = c.query(7, { what: 'operators', groupBy: 'op' });
    const b = c.query(7, { what: 'operatorDetail', groupBy: 'op', name: 'aten::mm', inputShape: '', step: '5' });
    expect(w.sent).toEqual([
      { kind: 'query', id: a.id, session: 7, query: { what: 'operators', groupBy: 'op' } },
      { kind: 'query', id: b.id, session: 7, query: { what: 'operatorDetail', groupBy: 'op', name: 'aten::mm', inputShape: '', step: '5' } },
    ]);
    w.reply({ kind: 'answer', id: b.id, result: { what: 'operatorDetail', stacks, kernels } });
    w.reply({ kind: 'answer', id: a.id, result: { what: 'operators', answer } });
    expect((await a.promise).answer).toBe(answer);
    expect((await b.promise).stacks).toBe(stacks);
    expect((await b.promise).kernels).toBe(kernels);
    expect(c.inFlight).toBe(0);
  });

  it('rejects an answer of the wrong kind, and a gone session with its name', async () => {
    const w = new FakeWorker();
    const c = new TraceClient(w);
    const a = c.query(1, { what: 'kernels', groupBy: 'name' });
    w.reply({ kind: 'answer', id: a.id, result: { what: 'operators', answer } });
    await expect(a.promise).rejects.toMatchObject({ name: 'ProtocolError' });
    const b = c.query(2, { what: 'kernels', groupBy: 'props' });
    w.reply({ kind: 'error', id: b.id, error: { name: SESSION_GONE, message: 'gone' } });
    await expect(b.promise).rejects.toBeInstanceOf(RemoteError);
    await expect(b.promise).rejects.toMatchObject({ name: SESSION_GONE });
  });

  it('closes a session without waiting for an answer, and failAll ends pending queries', async () => {
    const w = new FakeWorker();
    const c = new TraceClient(w);
    c.close(3);
    expect(w.sent[0]).toMatchObject({ kind: 'close', session: 3 });
    expect(c.inFlight).toBe(0);
    const q = c.query(3, { what: 'operators', groupBy: 'op+shape' });
    c.failAll({ name: SESSION_GONE, message: 'restarted' });
    await expect(q.promise).rejects.toMatchObject({ name: SESSION_GONE, message: 'restarted' });
  });
});
