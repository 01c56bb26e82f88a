/// <reference lib="webworker" />
// The reader worker, started by the trace worker for each file: reads (and gunzips) the file on
// this thread and moves 4 MB chunks to the trace worker, so file I/O overlaps parsing (feeder.ts).
import { serveChunks } from './feeder';

declare const self: DedicatedWorkerGlobalScope;

serveChunks(self);
