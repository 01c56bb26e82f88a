/// <reference lib="webworker" />
// The reader worker, started by the trace worker for each file: reads (and gunzips) the file on
// this thread and moves 4 MB chunks to the trace worker, so file I/O overlaps parsing (feeder.ts).
// Told to stop, it cancels a download it is reading and then ends itself.
import { serveChunks } from './feeder';
import type { ReaderResponse } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

serveChunks(self, () => self.close());
const ready: ReaderResponse = { kind: 'ready' };
self.postMessage(ready);
