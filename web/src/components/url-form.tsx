import { useState } from 'preact/hooks';
import { checkTraceUrl } from '../lib/trace-url';

interface Props {
  /** A checked http(s) URL, absolute. */
  onOpen(url: string): void;
  /** In the top bar: a short field, and the error as a popup under it. */
  compact?: boolean;
}

// "Paste a URL": a trace on a web server or bucket. The value is checked here (http or https,
// absolute or relative to the page); a bad one says why under the field and opens nothing. The
// form is never submitted for real (the page's CSP has form-action 'none'): the App decides how
// to open the URL (lib/trace-url.ts).
export function UrlForm({ onOpen, compact = false }: Props) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class={compact ? 'url-form compact' : 'url-form'}
      data-testid="url-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const c = checkTraceUrl(text, location.href);
        if (!c.ok) {
          setError(c.message);
          return;
        }
        setError(null);
        onOpen(c.url);
      }}
    >
      <div class="url-row">
        <label for="url-input" class={compact ? 'visually-hidden' : undefined}>
          Or paste a URL
        </label>
        <input
          id="url-input"
          type="text"
          inputMode="url"
          spellcheck={false}
          autoComplete="off"
          placeholder={compact ? 'or paste a trace URL' : 'https://…/worker0.pt.trace.json.gz'}
          value={text}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'url-error' : undefined}
          data-testid="url-input"
          onInput={(e) => {
            setText(e.currentTarget.value);
            setError(null);
          }}
        />
        <button type="submit" data-testid="url-open">
          Open
        </button>
      </div>
      {error && (
        <p class="file-error" id="url-error" role="alert" data-testid="url-error">
          {error}
        </p>
      )}
    </form>
  );
}
