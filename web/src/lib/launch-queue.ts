// Files the OS opens with the installed app (the manifest's file_handlers) arrive through the
// File Handling API's launchQueue; they go down the same path as a drop.

interface LaunchParams {
  files?: readonly FileSystemFileHandle[];
}
interface LaunchQueue {
  setConsumer(consumer: (params: LaunchParams) => void): void;
}

/**
 * Calls `onFiles` with the files of each launch. The browser keeps launches until a consumer is
 * set, so setting it from the app's first effect loses none. Without the API this does nothing.
 */
export function onLaunchFiles(onFiles: (files: File[]) => void): void {
  const queue = (window as unknown as { launchQueue?: LaunchQueue }).launchQueue;
  if (!queue) return;
  queue.setConsumer(async (params) => {
    const handles = params.files ?? [];
    if (!handles.length) return;
    const files = await Promise.all(handles.map((h) => h.getFile()));
    onFiles(files);
  });
}
