/** Saves `text` as a file named `fileName` through a Blob and an object URL (nothing leaves the page). */
export function downloadText(text: string, fileName: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoking at once can cancel the download in some browsers; a minute later it is long done.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A file-name stem from a trace's name: extensions and path dropped, odd characters replaced. */
export function csvStem(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const stem = base.replace(/(\.pt\.trace)?\.json(\.gz)?$/i, '').replace(/[^A-Za-z0-9._-]+/g, '_');
  return stem || 'trace';
}
