import { createSignal, Match, onCleanup, Show, Switch } from 'solid-js';
import type { PublicUser } from '@hub/contract';
import { api, can, connected, permissions, setToken } from './api';
import { Dashboard } from './pages/Dashboard';
import { Servers } from './pages/Servers';
import { Groups } from './pages/Groups';
import { Users } from './pages/Users';
import { Logs } from './pages/Logs';
import { Settings } from './pages/Settings';
import { Account } from './pages/Account';

const pages = ['dashboard', 'servers', 'groups', 'users', 'logs', 'settings', 'account'] as const;
const current = () => (location.hash.replace(/^#\/?/, '') || 'dashboard') as (typeof pages)[number];

export function Layout(props: { user: PublicUser | null }) {
  const [page, setPage] = createSignal(current());
  const onHash = () => setPage(current());
  window.addEventListener('hashchange', onHash);
  onCleanup(() => window.removeEventListener('hashchange', onHash));
  const [dark, setDark] = createSignal(localStorage.getItem('hub.theme') === 'dark');
  const applyTheme = () => document.documentElement.setAttribute('data-theme', dark() ? 'dark' : 'light');
  applyTheme();

  const logout = async () => {
    await api().auth.logout.mutate().catch(() => undefined);
    setToken(null);
  };
  // A page shows in the menu when the caller may read what it holds.
  const needs: Partial<Record<(typeof pages)[number], Parameters<typeof can>[0]>> = { servers: 'servers:read', groups: 'groups:read', users: 'users:read', logs: 'logs:read', settings: 'config:read' };
  const visible = (p: (typeof pages)[number]) => !needs[p] || can(needs[p]!);

  return (
    <div class="layout">
      <header class="topbar">
        <strong>Hub</strong>
        <span class={connected() ? 'live live-on' : 'live muted'} data-testid="live-status" data-live={connected() ? 'on' : 'off'}>{connected() ? '● live' : '○ reconnecting'}</span>
        <nav aria-label="Main">
          {pages.map((p) => (
            <Show when={visible(p)}>
              <a href={`#/${p}`} aria-current={page() === p ? 'page' : undefined}>{p[0]!.toUpperCase() + p.slice(1)}</a>
            </Show>
          ))}
        </nav>
        <span class="spacer" />
        <button class="link" aria-label="Toggle theme" onClick={() => (setDark(!dark()), localStorage.setItem('hub.theme', dark() ? 'dark' : 'light'), applyTheme())}>{dark() ? 'Light' : 'Dark'}</button>
        <Show when={props.user}>
          <span>{props.user!.username} ({props.user!.role})</span>
          <button class="link" onClick={logout}>Sign out</button>
        </Show>
      </header>
      <main class="content">
        <Switch fallback={<Dashboard generatedPassword={props.user?.generatedPassword ?? false} />}>
          <Match when={permissions() && !visible(page())}><p class="error" role="alert" data-testid="no-access">Your account may not open this page.</p></Match>
          <Match when={page() === 'servers'}><Servers /></Match>
          <Match when={page() === 'groups'}><Groups /></Match>
          <Match when={page() === 'users'}><Users /></Match>
          <Match when={page() === 'logs'}><Logs /></Match>
          <Match when={page() === 'settings'}><Settings /></Match>
          <Match when={page() === 'account'}><Account /></Match>
        </Switch>
      </main>
    </div>
  );
}
