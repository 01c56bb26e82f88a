import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Ask } from './use-query';
import type { SortState } from '../lib/table-model';
import { knownGroup, pendingTablePlace, tablePlace, type TablePlace, type TableState } from '../lib/deep-link';

/**
 * The grouping of a table view (Operators, Kernels) with its deep-link part: it starts from the
 * link's grouping, keeps the link's table state (`start`) for that grouping only, and reports the
 * view's place for the page's hash — the grouping at once, the table state as the table reports it.
 */
export function useLinkedGroup<G extends string>(groups: readonly G[], link?: TablePlace, onPlace?: (t: TablePlace) => void) {
  const [groupBy, setGroupBy] = useState<G>(() => knownGroup(link?.group, groups));
  // The link's table state belongs to its grouping: another grouping chosen afterwards starts plain.
  const [start, setStart] = useState(link);
  // A new grouping is part of the place before its table has come (with a link's table state,
  // until the table applies it).
  useEffect(() => onPlace?.(pendingTablePlace(groupBy, groups[0], start)), [groupBy]);
  return {
    groupBy,
    start,
    /** The user chose another grouping. */
    choose(g: G) {
      setStart(undefined);
      setGroupBy(g);
    },
    /** The table's state changed; `defaultSort` is the sorting a link need not mention. */
    report(s: TableState, defaultSort: SortState | null) {
      onPlace?.(tablePlace(groupBy, groups[0], s, defaultSort));
    },
  };
}

/** What the card gives a table view (Operators, Kernels). */
export interface TableViewProps {
  ask: Ask;
  fileName: string;
  /** Extra toolbar content ("Show in timeline"). */
  toolbar?: ComponentChildren;
  /** A deep link's table part, read when the view mounts. */
  link?: TablePlace;
  /** Hears the view's table part as it changes, for the page's hash. */
  onPlace?: (t: TablePlace) => void;
  /**
   * The step whose work the table counts, by its name as the steps list it (null: all steps);
   * a new one is asked for at once, the old table shown meanwhile.
   */
  step?: string | null;
}
