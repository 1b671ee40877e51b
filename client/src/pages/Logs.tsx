import { createMemo, createSignal, For, onCleanup } from 'solid-js';
import { api } from '../api';
import { Notice, useAction } from '../ui';

type Entry = { id: number; timestamp: string; level: string; message: string; server?: string };

export function Logs() {
  const [entries, setEntries] = createSignal<Entry[]>([]);
  const [level, setLevel] = createSignal('');
  const [server, setServer] = createSignal('');
  const [search, setSearch] = createSignal('');
  const [paused, setPaused] = createSignal(false);
  const action = useAction();
  let sub: { unsubscribe: () => void } | undefined;

  const subscribe = () => {
    sub?.unsubscribe();
    setEntries([]);
    sub = api().logs.stream.subscribe(
      { level: (level() || undefined) as never, server: server() || undefined, limit: 500 },
      {
        onData: (e) => {
          if (paused()) return;
          const fresh = (e.data.type === 'initial' ? e.data.logs : e.data.logs) as Entry[];
          setEntries((prev) => [...prev, ...fresh].slice(-2000));
        },
      },
    );
  };
  subscribe();
  onCleanup(() => sub?.unsubscribe());

  const shown = createMemo(() => {
    const q = search().toLowerCase();
    return q ? entries().filter((e) => e.message.toLowerCase().includes(q)) : entries();
  });

  return (
    <section>
      <h1>Logs</h1>
      <div class="toolbar">
        <label>Level <select aria-label="Level" value={level()} onChange={(e) => (setLevel(e.currentTarget.value), subscribe())}>
          <option value="">all</option><option value="error">error</option><option value="warn">warn</option><option value="info">info</option><option value="debug">debug</option>
        </select></label>
        <label>Server <input aria-label="Server filter" value={server()} onChange={(e) => (setServer(e.currentTarget.value), subscribe())} /></label>
        <label>Search <input aria-label="Search" value={search()} onInput={(e) => setSearch(e.currentTarget.value)} /></label>
        <button onClick={() => setPaused(!paused())}>{paused() ? 'Resume' : 'Pause'}</button>
        <button class="danger" onClick={() => void action.run('Logs cleared', () => api().logs.clear.mutate()).then(() => setEntries([]))}>Clear</button>
      </div>
      <Notice message={action.message()} />
      <ol class="logs" aria-label="Log lines" data-testid="log-lines">
        <For each={shown()}>
          {(e) => (
            <li class={`log log-${e.level}`}>
              <time>{e.timestamp.slice(11, 23)}</time> <b>{e.level}</b> <span class="muted">{e.server ?? 'hub'}</span> {e.message}
            </li>
          )}
        </For>
      </ol>
    </section>
  );
}
