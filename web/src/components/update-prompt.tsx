import { useEffect } from 'preact/hooks';
import { useRegisterSW } from 'virtual:pwa-register/preact';
import './update-prompt.css';

const HOUR = 60 * 60 * 1000;

/**
 * Registers the service worker and says when a new version is waiting. The new version only
 * takes over when the person presses Reload: a silent swap would reload away the traces loaded.
 * The update message is a bar along the bottom of the window that the page makes room for (the
 * body gets `with-status-bar`), so it never covers a control.
 */
export function UpdatePrompt() {
  const {
    needRefresh: [needRefresh, setNeedRefresh],
    offlineReady: [offlineReady, setOfflineReady],
    updateServiceWorker,
  } = useRegisterSW({
    onRegisteredSW(_url, registration) {
      // A tab kept open for days still learns about new versions.
      if (registration) setInterval(() => void registration.update().catch(() => {}), HOUR);
    },
    onRegisterError(error) {
      // Not fatal: the site works online without it (e.g. private windows that refuse workers).
      console.warn('Kinetoscope: the service worker could not be registered, so offline use is off:', error);
    },
  });

  // Only the update, which asks for a choice, takes a bar the page makes room for; "works
  // offline" is news, not a question: a small note in the corner that goes at the next click or
  // key press anywhere (it sat on the bottom of every view until dismissed).
  useEffect(() => {
    document.body.classList.toggle('with-status-bar', needRefresh);
    return () => document.body.classList.remove('with-status-bar');
  }, [needRefresh]);
  useEffect(() => {
    if (!offlineReady || needRefresh) return;
    const close = () => setOfflineReady(false);
    window.addEventListener('pointerdown', close, { capture: true, once: true });
    window.addEventListener('keydown', close, { capture: true, once: true });
    return () => {
      window.removeEventListener('pointerdown', close, { capture: true });
      window.removeEventListener('keydown', close, { capture: true });
    };
  }, [offlineReady, needRefresh]);

  if (needRefresh) {
    return (
      <div class="update-prompt" role="status" data-testid="update-prompt">
        <span>Update available.</span>
        <button type="button" class="primary" data-testid="update-reload" onClick={() => void updateServiceWorker(true)}>
          Reload
        </button>
        <button type="button" data-testid="update-later" onClick={() => setNeedRefresh(false)}>
          Later
        </button>
      </div>
    );
  }
  if (offlineReady) {
    return (
      <div class="offline-note" role="status" data-testid="offline-ready">
        Kinetoscope now works offline.
      </div>
    );
  }
  return null;
}
