import { CountTable } from '../components/count-table';
import { HealthTable } from '../components/health-table';
import { formatBytes, formatCount, formatDeviceMemory, formatDurationUs, traceClock } from '../lib/format';
import { csvStem } from '../lib/download';
import { formatLabel, namingLabel, type Summary } from '../lib/summary';

/** A file that is not a trace (or could not be read): the one sentence why, and what was counted. */
export function TraceError({ summary }: { summary: Summary }) {
  return (
    <div class="card-body">
      <p class="file-error" data-testid="file-error" role="alert">
        {summary.error || 'This file is not a PyTorch profiler trace.'}
      </p>
      {summary.health?.length ? <HealthTable rows={summary.health} /> : null}
    </div>
  );
}

// The Trace tab: what the file holds (format, schema, clock, devices, distributed setup, events by
// category, phase and kind) and its trace health. Every string from the trace is rendered as a
// text node, never as HTML.
export function TraceView({ summary, fileSize }: { summary: Summary; fileSize: number }) {
  const s = summary;
  const schema = s.schema;
  const csvBase = csvStem(s.file || schema?.trace_name || 'trace');
  const clock = traceClock(s.start_us, s.end_us, schema?.base_time_ns);
  return (
    <div class="card-body trace-view" data-testid="trace-view">
      <p class="meta" data-testid="format-line">
        <span data-testid="format">{formatLabel(s.format)}</span>
        {schema?.schema_version != null && (
          <span>
            {' · '}schema <span data-testid="schema-version">{schema.schema_version}</span>
          </span>
        )}
        {' · '}
        <span data-testid="naming">{namingLabel(schema?.naming)}</span>
        {schema?.framework ? <span> · {schema.framework}</span> : null}
      </p>
      {schema?.trace_name ? (
        <p class="meta">
          Trace name: <strong data-testid="trace-name">{schema.trace_name}</strong>
        </p>
      ) : null}

      <dl class="stats">
        <div>
          <dt>Events</dt>
          <dd data-testid="events-total">{formatCount(s.events)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd data-testid="span">{s.span_us == null ? '—' : formatDurationUs(s.span_us)}</dd>
        </div>
        <div class="wide" title={clock.note}>
          <dt>Start{clock.kind === 'relative' ? ' (from the first event)' : ''}</dt>
          <dd data-testid="start">{clock.start}</dd>
        </div>
        <div class="wide" title={clock.note}>
          <dt>End{clock.kind === 'relative' ? ' (from the first event)' : ''}</dt>
          <dd data-testid="end">{clock.end}</dd>
        </div>
        <div>
          <dt>JSON read</dt>
          <dd data-testid="bytes">{formatBytes(s.bytes)}</dd>
        </div>
        <div>
          <dt>File</dt>
          <dd>{formatBytes(fileSize)}</dd>
        </div>
      </dl>
      <p class="muted clock-note" data-testid="clock-note">
        {clock.note}
      </p>

      <h3>Distributed</h3>
      {s.distributed ? (
        <p data-testid="distributed">
          Rank <strong data-testid="distributed-rank">{s.distributed.rank}</strong> of world size{' '}
          <strong data-testid="distributed-world-size">{s.distributed.world_size}</strong>
          {s.distributed.backend ? (
            <>
              , backend <code data-testid="distributed-backend">{s.distributed.backend}</code>
            </>
          ) : null}
        </p>
      ) : (
        <p class="muted" data-testid="distributed-none">
          Not distributed.
        </p>
      )}

      <h3>Devices</h3>
      {s.devices?.length ? (
        <table class="table" data-testid="devices-table">
          <thead>
            <tr>
              <th>Id</th>
              <th>Name</th>
              <th class="num">Memory</th>
              <th class="num">Compute capability</th>
              <th>Architecture</th>
              <th class="num">SMs</th>
            </tr>
          </thead>
          <tbody>
            {s.devices.map((d, i) => (
              <tr key={d.id}>
                <td class="num">{d.id}</td>
                <td data-testid={`device-name-${i}`}>{d.name}</td>
                <td class="num" data-testid={`device-memory-${i}`}>
                  {formatDeviceMemory(d.memory_bytes)}
                </td>
                <td class="num">{d.compute_capability || '—'}</td>
                <td data-testid={`device-arch-${i}`}>{d.arch || '—'}</td>
                <td class="num" data-testid={`device-sms-${i}`}>
                  {d.sms ?? '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted" data-testid="devices-none">
          No device properties in this trace.
        </p>
      )}

      <div class="grid2">
        <div>
          <h3>Events per category</h3>
          <CountTable
            title="Category"
            stem="category"
            counts={s.categories}
            emptyLabel="(no category)"
            csvName={`${csvBase}-categories.csv`}
          />
        </div>
        <div>
          <h3>Events per phase</h3>
          <CountTable title="Phase" stem="phase" counts={s.phases} emptyLabel="(no phase)" csvName={`${csvBase}-phases.csv`} />
          <h3>Events per kind</h3>
          <CountTable title="Kind" stem="kind" counts={s.kinds} hideZero csvName={`${csvBase}-kinds.csv`} />
        </div>
      </div>

      <h3>Trace health</h3>
      {s.truncated ? (
        <p class="warn" data-testid="truncated">
          The trace is cut off: everything complete before the cut was loaded.
        </p>
      ) : null}
      <HealthTable rows={s.health ?? []} />
    </div>
  );
}
