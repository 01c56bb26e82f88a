import { useRef, useState } from 'preact/hooks';
import { droppedFiles, pickedFiles, type Dropped } from '../lib/folder';
import { UrlForm } from './url-form';

interface Props {
  /** Files and folders dropped or picked (folders already walked). */
  onDropped(d: Dropped): void;
  onSample(): void;
  /** A URL pasted into the "paste a URL" field, checked (http or https, absolute). */
  onUrl(url: string): void;
  busy: boolean;
  /** Traces are open: a one-line bar in the page's top bar (drops are taken anywhere on the page). */
  compact?: boolean;
}

// Memory snapshots (torch.cuda.memory._dump_snapshot pickles) too: the worker tells them by content.
const ACCEPT = '.json,.gz,.pickle,.pkl,application/json,application/gzip';

export function DropZone({ onDropped, onSample, onUrl, busy, compact = false }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);

  const take = (d: Dropped) => {
    if (d.loose.length || d.inFolders.length || d.unreadable.length) onDropped(d);
  };
  const takeInput = (el: HTMLInputElement) => {
    if (el.files?.length) take(pickedFiles(el.files));
    el.value = ''; // picking the same file again must fire change again
  };

  const inputs = (
    <>
      <input
        ref={input}
        type="file"
        multiple
        accept={ACCEPT}
        hidden
        data-testid="file-input"
        onChange={(e) => takeInput(e.currentTarget)}
      />
      {/* webkitdirectory: the picker chooses a folder and hands over every file under it. */}
      <input
        ref={folderInput}
        type="file"
        hidden
        data-testid="folder-input"
        {...{ webkitdirectory: true }}
        onChange={(e) => takeInput(e.currentTarget)}
      />
    </>
  );
  const buttons = (
    <>
      <button type="button" class={compact ? '' : 'primary'} onClick={() => input.current?.click()} data-testid="pick-files">
        {compact ? 'Open files…' : 'Choose files…'}
      </button>
      <button type="button" onClick={() => folderInput.current?.click()} data-testid="pick-folder">
        {compact ? 'Open folder…' : 'Choose folder…'}
      </button>
      <button type="button" onClick={onSample} disabled={busy} data-testid="open-sample">
        {compact ? 'Sample' : 'Open sample'}
      </button>
    </>
  );
  const dropHandlers = {
    onDragOver: (e: DragEvent) => {
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
      setOver(true);
    },
    onDragLeave: () => setOver(false),
    onDrop: (e: DragEvent) => {
      e.preventDefault();
      setOver(false);
      // The entries must be taken now, during the event; walking the folders comes after.
      if (e.dataTransfer) void droppedFiles(e.dataTransfer).then(take);
    },
  };

  if (compact) {
    return (
      <section class={`drop-bar${over ? ' over' : ''}`} data-testid="drop-zone" aria-label="Open more traces" {...dropHandlers}>
        <span class="muted drop-bar-hint">Drop traces anywhere, or</span>
        {buttons}
        <UrlForm onOpen={onUrl} compact />
        {inputs}
      </section>
    );
  }
  return (
    <section class={`drop-zone${over ? ' over' : ''}`} data-testid="drop-zone" {...dropHandlers}>
      <p class="drop-title">Drop PyTorch profiler traces here</p>
      <p class="muted">
        <code>.json</code> or <code>.json.gz</code>, one or several, or a folder of runs
        (<code>&lt;worker&gt;[.&lt;span&gt;].pt.trace.json[.gz]</code>, as TensorBoard's plugin read them), or CUDA memory
        snapshots (<code>.pickle</code>). Nothing leaves your machine.
      </p>
      <div class="actions">{buttons}</div>
      <UrlForm onOpen={onUrl} />
      {inputs}
    </section>
  );
}
