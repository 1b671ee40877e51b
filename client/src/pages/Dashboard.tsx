import { createResource, createSignal, For, onCleanup, Show } from 'solid-js';
import { api, can } from '../api';
import { CallsChart, type Point } from './CallsChart';

type Pulse = { seq: number; time: string; uptime: number; revision: number; memoryMb: number };

export function Dashboard(props: { generatedPassword: boolean }) {
  const [pulse, setPulse] = createSignal<Pulse | null>(null);
  // What the caller may see: their servers and groups (not the whole settings file, which needs config:read).
  const [servers, { refetch }] = createResource(() => api().servers.list.query().catch(() => null));
  const [groups, groupsCtl] = createResource(() => api().groups.list.query().catch(() => null));
  const [overview, overviewCtl] = createResource(() => api().monitoring.overview.query().catch(() => null));
  const [calls, setCalls] = createSignal<number[]>([]);
  // The last hour per minute: read once, then kept current from the live call feed.
  const [timeline, setTimeline] = createSignal<Point[]>([]);
  void api().monitoring.metrics.query({ range: '1h' }).then((m) => setTimeline(m.timeline), () => undefined);
  const count = (ok: boolean) => {
    const minute = Math.ceil(Date.now() / 60_000) * 60_000 - 60_000;
    setTimeline((t) => {
      const next = t.length && t[t.length - 1]!.at === minute ? [...t] : [...t, { at: minute, calls: 0, errors: 0 }].slice(-60);
      const last = next[next.length - 1]!;
      next[next.length - 1] = { ...last, calls: last.calls + 1, errors: last.errors + (ok ? 0 : 1) };
      return next;
    });
  };
  // Tools an upstream changed after they were pinned: the first thing an operator should see.
  // Callers without tools:read are refused: no notice for them.
  const [toolChanges, toolChangesCtl] = createResource(() => api().pins.changes.query().catch(() => null));
  const [errors, errorsCtl] = createResource(() => api().monitoring.errors.query({ groupBy: 'server', since: '1h', details: true }).catch(() => null));

  const beat = api().system.heartbeat.subscribe({ intervalMs: 2000 }, {
    onData: (e) => {
      setPulse(e.data);
      void overviewCtl.refetch();
    },
  });
  const changes = api().system.onSettingsChanged.subscribe(undefined, { onData: () => (void refetch(), void groupsCtl.refetch(), void toolChangesCtl.refetch()) });
  const activity = api().monitoring.onCall.subscribe(undefined, {
    onData: (e) => {
      setCalls((c) => [...c.filter((t) => t > Date.now() - 60_000), Date.now()]);
      count(e.data.ok);
      if (!e.data.ok) void errorsCtl.refetch();
    },
  });
  onCleanup(() => (beat.unsubscribe(), changes.unsubscribe(), activity.unsubscribe()));

  return (
    <section>
      <h1>Dashboard</h1>
      <Show when={props.generatedPassword}>
        <p class="notice">You are using the generated admin password. <a href="#/account">Change it now</a>.</p>
      </Show>
      <Show when={toolChanges()?.length}>
        <p class="notice" data-testid="tool-changes-notice">
          {toolChanges()!.length} tool{toolChanges()!.length === 1 ? '' : 's'} or prompt{toolChanges()!.length === 1 ? '' : 's'} changed upstream since pinned and wait{toolChanges()!.length === 1 ? 's' : ''} for a decision:{' '}
          {toolChanges()!.map((c) => `${c.server}/${c.tool}`).join(', ')}. <a href="#/servers">Review on Servers</a>.
        </p>
      </Show>
      <section class="cards">
        <div class="card stat"><span class="muted">Servers</span><strong data-testid="server-count">{servers()?.length ?? '–'}</strong>
          <span class="small"><For each={Object.entries(overview()?.servers.byStatus ?? {})}>{([s, n]) => <span>{n} {s} </span>}</For></span></div>
        <div class="card stat"><span class="muted">Tools</span><strong data-testid="tool-count">{overview.loading ? '…' : (overview()?.tools ?? servers()?.reduce((n, s) => n + s.tools.length, 0) ?? '–')}</strong></div>
        <div class="card stat"><span class="muted">Sessions</span><strong>{overview.loading ? '…' : (overview()?.sessions ?? '–')}</strong></div>
        <div class="card stat"><span class="muted">Calls / min</span><strong data-testid="calls-per-minute">{calls().filter((t) => t > Date.now() - 60_000).length}</strong></div>
        <div class="card stat"><span class="muted">Error rate (5 min)</span><strong>{((overview()?.errorRate ?? 0) * 100).toFixed(1)}%</strong></div>
        <div class="card stat"><span class="muted">Groups</span><strong data-testid="group-count">{groups()?.length ?? '–'}</strong></div>
        <div class="card stat"><span class="muted">Uptime</span><strong data-testid="uptime">{pulse() ? `${Math.floor(pulse()!.uptime)} s` : '…'}</strong></div>
        <div class="card stat"><span class="muted">Settings revision</span><strong data-testid="revision">{pulse()?.revision ?? '…'}</strong></div>
      </section>
      <Show when={can('monitoring:read')}>
        <h2>Calls and errors, last hour</h2>
        <CallsChart points={timeline()} />
      </Show>
      <h2>Recent errors</h2>
      <ul class="items" data-testid="recent-errors">
        <For each={(errors()?.errors ?? []).slice(-10).reverse()} fallback={<li class="muted">No errors in the last hour.</li>}>
          {(e) => <li><time class="muted">{e.at.slice(11, 19)}</time> <b>{e.server}/{e.tool}</b> {e.error}</li>}
        </For>
      </ul>
      <p class="muted" data-testid="heartbeat">Last heartbeat: {pulse()?.time ?? 'waiting…'}</p>
    </section>
  );
}
