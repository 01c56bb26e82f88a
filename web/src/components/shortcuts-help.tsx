import { useEffect, useRef } from 'preact/hooks';
import { SHORTCUTS } from '../lib/shortcuts';

/** The list of keyboard shortcuts ("?"), closed by Esc, "?" or its button. */
export function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus(), []);
  return (
    <div class="shortcuts-backdrop" onClick={onClose}>
      <div
        class="shortcuts card"
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        data-testid="shortcuts-help"
        onClick={(ev) => ev.stopPropagation()}
      >
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <table class="table">
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.keys}>
                <td>
                  <kbd>{s.keys}</kbd>
                </td>
                <td>{s.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" ref={close} data-testid="shortcuts-close" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
