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
}

const ACCEPT = '.json,.gz,application/json,application/gzip';

export function DropZone({ onDropped, onSample, onUrl, busy }: Props) {
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

  return (
    <section
      class={`drop-zone${over ? ' over' : ''}`}
      data-testid="drop-zone"
      onDragOver={(e) => {
        e.preventDefault();
        if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        // The entries must be taken now, during the event; walking the folders comes after.
        if (e.dataTransfer) void droppedFiles(e.dataTransfer).then(take);
      }}
    >
      <p class="drop-title">Drop PyTorch profiler traces here</p>
      <p class="muted">
        <code>.json</code> or <code>.json.gz</code>, one or several, or a folder of runs
        (<code>&lt;worker&gt;[.&lt;span&gt;].pt.trace.json[.gz]</code>, as TensorBoard's plugin read them). Nothing leaves your
        machine.
      </p>
      <div class="actions">
        <button type="button" class="primary" onClick={() => input.current?.click()} data-testid="pick-files">
          Choose files…
        </button>
        <button type="button" onClick={() => folderInput.current?.click()} data-testid="pick-folder">
          Choose folder…
        </button>
        <button type="button" onClick={onSample} disabled={busy} data-testid="open-sample">
          Open sample
        </button>
      </div>
      <UrlForm onOpen={onUrl} />
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
    </section>
  );
}
