import { useEffect, useRef, useState } from 'preact/hooks';
import { SHORTCUTS, viewKeys } from '../lib/shortcuts';

/** The list of keyboard shortcuts ("?"), closed by Esc, "?" or its button. */
export function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  // The tabs of the trace in view, as its card shows them (none on the landing page or a run page).
  const [views] = useState(() => {
    const list = [...document.querySelectorAll<HTMLElement>('[data-testid=file-card]')].find((c) => c.offsetParent !== null)?.querySelector('[role=tablist]');
    return viewKeys(list ? [...list.querySelectorAll<HTMLElement>('[role=tab]')].map((t) => t.textContent?.trim() ?? '') : []);
  });
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
        {views.length > 0 && (
          <>
            <h3 class="shortcuts-views">Views of this file</h3>
            <ul class="shortcuts-view-keys" data-testid="shortcuts-views">
              {views.map((v) => (
                <li key={v.keys}>
                  <kbd>{v.keys}</kbd> {v.what}
                </li>
              ))}
            </ul>
          </>
        )}
        <button type="button" ref={close} data-testid="shortcuts-close" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
