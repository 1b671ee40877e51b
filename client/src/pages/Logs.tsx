import { createEffect, createMemo, createSignal, For, on, onCleanup, Show } from 'solid-js';
import { api, can } from '../api';
import { Notice, useAction } from '../ui';

type Entry = { id: number; timestamp: string; level: string; message: string; server?: string };

const KEEP = 2000;

export function Logs() {
  const [entries, setEntries] = createSignal<Entry[]>([]);
  const [held, setHeld] = createSignal<Entry[]>([]);
  const [level, setLevel] = createSignal('');
  const [server, setServer] = createSignal('');
  const [search, setSearch] = createSignal('');
  const [paused, setPaused] = createSignal(false);
  const [following, setFollowing] = createSignal(true);
  const action = useAction();
  let sub: { unsubscribe: () => void } | undefined;
  let list: HTMLOListElement | undefined;

  const subscribe = () => {
    sub?.unsubscribe();
    setEntries([]);
    setHeld([]);
    sub = api().logs.stream.subscribe(
      { level: (level() || undefined) as never, limit: 500 },
      {
        onData: (e) => {
          const fresh = e.data.logs as Entry[];
          // Paused: lines are kept aside, not dropped, and shown on resume.
          if (paused()) setHeld((h) => [...h, ...fresh].slice(-KEEP));
          else setEntries((prev) => [...prev, ...fresh].slice(-KEEP));
        },
      },
    );
  };
  subscribe();
  onCleanup(() => sub?.unsubscribe());

  const resume = () => {
    setEntries((prev) => [...prev, ...held()].slice(-KEEP));
    setHeld([]);
    setPaused(false);
  };

  // The server filter matches any part of a server's name, case aside.
  const shown = createMemo(() => {
    const q = search().toLowerCase();
    const s = server().trim().toLowerCase();
    return entries().filter((e) => (!s || (e.server ?? 'hub').toLowerCase().includes(s)) && (!q || e.message.toLowerCase().includes(q)));
  });

  // Follow the newest line unless the operator scrolled up to read.
  const atBottom = () => !list || list.scrollTop + list.clientHeight >= list.scrollHeight - 24;
  const toBottom = () => list && (list.scrollTop = list.scrollHeight);
  createEffect(on(shown, () => queueMicrotask(() => following() && toBottom())));

  const clear = () => {
    if (!confirm('Clear every log line kept in memory? Log files on disk are not touched.')) return;
    void action.run('Logs cleared', () => api().logs.clear.mutate()).then(() => setEntries([]));
  };

  return (
    <section>
      <h1>Logs</h1>
      <div class="toolbar">
        <label>Level <select aria-label="Level" value={level()} onChange={(e) => (setLevel(e.currentTarget.value), subscribe())}>
          <option value="">all</option>
          <option value="error">error and worse</option>
          <option value="warn">warn and worse</option>
          <option value="info">info and worse</option>
          <option value="debug">debug and worse</option>
        </select></label>
        <label>Server <input aria-label="Server filter" placeholder="any part of a name" value={server()} onInput={(e) => setServer(e.currentTarget.value)} /></label>
        <label>Search <input aria-label="Search" value={search()} onInput={(e) => setSearch(e.currentTarget.value)} /></label>
        <Show when={paused()} fallback={<button onClick={() => setPaused(true)}>Pause</button>}>
          <button onClick={resume}>Resume ({held().length} new)</button>
        </Show>
        <Show when={can('logs:write')}><button class="danger" onClick={clear}>Clear</button></Show>
      </div>
      <Notice message={action.message()} />
      <ol class="logs scroll" aria-label="Log lines" data-testid="log-lines" ref={list} onScroll={() => setFollowing(atBottom())}>
        <For each={shown()}>
          {(e) => (
            <li class={`log log-${e.level}`} data-server={e.server ?? 'hub'}>
              <time>{e.timestamp.slice(11, 23)}</time> <b>{e.level}</b> <span class="muted">{e.server ?? 'hub'}</span> {e.message}
            </li>
          )}
        </For>
      </ol>
      <Show when={!following()}><button class="link" data-testid="jump-newest" onClick={() => (setFollowing(true), toBottom())}>Jump to the newest line</button></Show>
    </section>
  );
}
