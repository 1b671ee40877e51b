import { createResource, createSignal, onCleanup, Show } from 'solid-js';
import type { PublicUser } from '@hub/contract';
import { api, connected, setToken } from '../api';

type Pulse = { seq: number; time: string; uptime: number; revision: number; memoryMb: number };

export function Dashboard(props: { user: PublicUser | null }) {
  const [pulse, setPulse] = createSignal<Pulse | null>(null);
  const [settings, { refetch }] = createResource(() => api().settings.get.query().catch(() => null));

  const beat = api().system.heartbeat.subscribe({ intervalMs: 2000 }, { onData: (e) => setPulse(e.data) });
  const changes = api().system.onSettingsChanged.subscribe(undefined, { onData: () => void refetch() });
  onCleanup(() => (beat.unsubscribe(), changes.unsubscribe()));

  const logout = async () => {
    await api().auth.logout.mutate().catch(() => undefined);
    setToken(null);
  };

  return (
    <div class="layout">
      <header class="topbar">
        <strong>Hub</strong>
        <span class="muted" data-testid="live-status">{connected() ? '● live' : '○ reconnecting'}</span>
        <span class="spacer" />
        <Show when={props.user}>
          <span>{props.user!.username} ({props.user!.role})</span>
          <button class="link" onClick={logout}>Sign out</button>
        </Show>
      </header>
      <main class="content">
        <h1>Dashboard</h1>
        <Show when={props.user?.generatedPassword}>
          <p class="notice">You are using the generated admin password. Change it soon.</p>
        </Show>
        <section class="cards">
          <div class="card stat">
            <span class="muted">Servers</span>
            <strong data-testid="server-count">{Object.keys(settings()?.mcpServers ?? {}).length}</strong>
          </div>
          <div class="card stat">
            <span class="muted">Groups</span>
            <strong>{settings()?.groups.length ?? 0}</strong>
          </div>
          <div class="card stat">
            <span class="muted">Uptime</span>
            <strong data-testid="uptime">{pulse() ? `${Math.floor(pulse()!.uptime)} s` : '…'}</strong>
          </div>
          <div class="card stat">
            <span class="muted">Settings revision</span>
            <strong data-testid="revision">{pulse()?.revision ?? '…'}</strong>
          </div>
        </section>
        <p class="muted" data-testid="heartbeat">Last heartbeat: {pulse()?.time ?? 'waiting…'}</p>
      </main>
    </div>
  );
}
