import { useRef, useState } from 'preact/hooks';

interface Props {
  onFiles(files: File[]): void;
  onSample(): void;
  busy: boolean;
}

const ACCEPT = '.json,.gz,application/json,application/gzip';

export function DropZone({ onFiles, onSample, busy }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);

  const take = (list: FileList | null | undefined) => {
    const files = list ? Array.from(list) : [];
    if (files.length) onFiles(files);
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
        take(e.dataTransfer?.files);
      }}
    >
      <p class="drop-title">Drop PyTorch profiler traces here</p>
      <p class="muted">
        <code>.json</code> or <code>.json.gz</code>, one or several. Nothing leaves your machine.
      </p>
      <div class="actions">
        <button type="button" class="primary" onClick={() => input.current?.click()} data-testid="pick-files">
          Choose files…
        </button>
        <button type="button" onClick={onSample} disabled={busy} data-testid="open-sample">
          Open sample
        </button>
      </div>
      <input
        ref={input}
        type="file"
        multiple
        accept={ACCEPT}
        hidden
        data-testid="file-input"
        onChange={(e) => {
          const el = e.currentTarget;
          take(el.files);
          el.value = ''; // picking the same file again must fire change again
        }}
      />
    </section>
  );
}
