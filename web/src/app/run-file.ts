// Run files (`*.kinetoscope-run.json`, lib/run-file.ts) as the page meets them: among dropped or
// picked files they are told from traces by their first bytes (gzipped or not, whatever the
// name); by URL (`?url=`) by their name, since telling by content would need a second request
// to a trace's server (docs/privacy.md: one request per URL). A run file is read whole as text
// (kilobytes a rank: 8,192 ranks are a few MB), never a trace.
import { fetchTrace } from '../lib/fetch-trace';
import { isGzip } from '../lib/gzip';
import { isRunFileHead, parseRunFile, RunFileError, type RunFile } from '../lib/run-file';
import { traceNameOf } from '../lib/trace-url';

async function headOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = stream.getReader();
  try {
    const { value } = await reader.read();
    return value ?? new Uint8Array();
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** The first bytes of a file's content (decompressed when it is gzip). */
async function contentHead(file: File): Promise<Uint8Array> {
  const raw = new Uint8Array(await file.slice(0, 64).arrayBuffer());
  if (!isGzip(raw)) return raw;
  try {
    return await headOf(file.stream().pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>));
  } catch {
    return new Uint8Array(); // a broken gzip is the trace loader's to report
  }
}

/** Whether a dropped or picked file is a run file (by its content). */
export async function isRunFile(file: File): Promise<boolean> {
  return isRunFileHead(await contentHead(file));
}

/** Whether a URL names a run file (`?url=`). */
export function isRunFileUrl(url: string): boolean {
  try {
    return /\.kinetoscope-run\.json(\.gz)?$/i.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

async function textOf(stream: ReadableStream<Uint8Array>): Promise<string> {
  const [a, b] = stream.tee();
  const head = await headOf(a);
  const body = isGzip(head) ? b.pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>) : b;
  return new Response(body).text();
}

/** A dropped run file, read; a RunFileError's message is the sentence to show. */
export async function readRunFile(file: File): Promise<RunFile> {
  let text: string;
  try {
    text = await textOf(file.stream());
  } catch (e) {
    throw new RunFileError(`${file.name} could not be read (${(e as Error).message}).`);
  }
  return parseRunFile(text, file.name);
}

/** A run file by URL (the same download as a trace's: lib/fetch-trace.ts, its sentences on failure). */
export async function fetchRunFile(url: string, signal: AbortSignal): Promise<RunFile> {
  const name = traceNameOf(url);
  const { stream } = await fetchTrace(url, signal);
  let text: string;
  try {
    text = await textOf(stream);
  } catch (e) {
    throw new RunFileError(`${name} could not be read (${(e as Error).message}).`);
  }
  return parseRunFile(text, name);
}
