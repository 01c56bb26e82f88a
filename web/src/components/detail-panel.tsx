import type { ComponentChild, ComponentChildren } from 'preact';
import { useMemo, useRef, useState } from 'preact/hooks';
import { cellText, headerLabel, type RowKey, type TableModel } from '../lib/table-model';
import './detail-panel.css';

/**
 * The row selected in a view's data table, as its index in `keys` (null: none, or not in this
 * table, e.g. another step's), for the panel under it. Put `box` on an element holding the table:
 * `close()` deselects the row there, as Esc does.
 */
export function useSelectedRow(keys: readonly string[]) {
  const index = useMemo(() => new Map(keys.map((k, i) => [k, i])), [keys]);
  const [selected, setSelected] = useState<RowKey | null>(null);
  const box = useRef<HTMLDivElement>(null);
  return {
    row: selected == null ? null : index.get(String(selected)) ?? null,
    selected: selected != null,
    onSelect: setSelected,
    box,
    close: () => box.current?.querySelector('.data-table')?.dispatchEvent(new CustomEvent('ks-deselect')),
  };
}

export interface DetailField {
  id: string;
  label: string;
  value: string;
  /** Hover text (e.g. the rule behind a Tensor Core "?"). */
  title?: string;
}

/**
 * Every column of source row `row`, hidden ones too, as the table formats them; but those in
 * `named` (the panel's title already shows them whole: the name, its shape or operator).
 */
export function rowFields(model: TableModel, row: number, named: readonly string[] = ['name']): DetailField[] {
  return model.columns
    .filter((c) => !named.includes(c.id))
    .map((c) => ({ id: c.id, label: headerLabel(c), value: cellText(c, row), title: c.title?.(row) }));
}

/**
 * What a selected table row is made of, under the table: its full name, every column's value, and
 * the view's lists (`children`). Test ids: `<stem>-detail`, `-detail-name`, `-detail-close`,
 * `-detail-field-<column id>` (its <dd> holds the value). Trace strings are rendered as text.
 */
export function DetailPanel({
  stem,
  label,
  name,
  fields,
  onClose,
  children,
}: {
  stem: string;
  /** Accessible name of the panel ("Kernel details"). */
  label: string;
  /** The row's full name (and what else names it), shown whole, wrapping. */
  name: ComponentChild;
  fields: DetailField[];
  onClose: () => void;
  children?: ComponentChildren;
}) {
  return (
    <section class="detail-panel" data-testid={`${stem}-detail`} aria-label={label}>
      <header class="detail-head">
        <h4 class="detail-name" data-testid={`${stem}-detail-name`}>
          {name}
        </h4>
        <button type="button" class="detail-close" data-testid={`${stem}-detail-close`} aria-label={`Close the ${label.toLowerCase()}`} title="Close (Esc)" onClick={onClose}>
          ×
        </button>
      </header>
      <dl class="detail-fields">
        {fields.map((f) => (
          <div key={f.id} data-testid={`${stem}-detail-field-${f.id}`}>
            <dt>{f.label}</dt>
            <dd title={f.title}>{f.value}</dd>
          </div>
        ))}
      </dl>
      {children}
    </section>
  );
}

export interface ListColumn {
  label: string;
  /** Right-aligned, tabular figures. */
  num?: boolean;
  text: (i: number) => string;
  title?: (i: number) => string | undefined;
}

/** A small list of the panel (launching operators, launch properties, kernels): a plain table, rows `<testid>-row`. */
export function DetailList({ testid, caption, count, columns, empty }: { testid: string; caption: string; count: number; columns: ListColumn[]; empty: string }) {
  return (
    <div class="detail-list-block">
      <h5>{caption}</h5>
      {count === 0 ? (
        <p class="muted" data-testid={`${testid}-empty`}>
          {empty}
        </p>
      ) : (
        <div class="detail-list-scroll">
          <table class="table detail-list" data-testid={testid}>
            <thead>
              <tr>
                {columns.map((c, k) => (
                  <th key={k} class={c.num ? 'num' : ''}>
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {Array.from({ length: count }, (_, i) => (
                <tr key={i} data-testid={`${testid}-row`}>
                  {columns.map((c, k) => (
                    <td key={k} class={c.num ? 'num' : ''} title={c.title?.(i)}>
                      {c.text(i)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
