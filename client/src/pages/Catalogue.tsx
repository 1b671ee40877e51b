import { createResource, createSignal, For, Show } from 'solid-js';
import type { CatalogEntry } from '@hub/contract';
import { api } from '../api';

type Item = CatalogEntry & { source: string };

/** Installable servers, searchable; "Install" fills the add form with the entry. */
export function Catalogue(props: { onPick: (item: Item) => void }) {
  const [query, setQuery] = createSignal('');
  const [open, setOpen] = createSignal(false);
  const [result] = createResource(() => (open() ? query() : false), (q) => api().servers.catalog.query({ query: q || undefined }));
  return (
    <div class="card" aria-label="Catalogue">
      <h2>Catalogue <button type="button" class="link" onClick={() => setOpen(!open())}>{open() ? 'Hide' : 'Browse installable servers'}</button></h2>
      <Show when={open()}>
        <input aria-label="Search the catalogue" placeholder="search by name, purpose or tag" value={query()} onInput={(e) => setQuery(e.currentTarget.value)} />
        <For each={result()?.errors ?? []}>{(e) => <p class="error small">Catalogue {e.url}: {e.error}</p>}</For>
        <ul class="items" data-testid="catalogue">
          <For each={result()?.items ?? []} fallback={<li class="muted">Nothing matches.</li>}>
            {(item) => (
              <li data-entry={item.name}>
                <strong>{item.name}</strong> <span class="muted small">{item.tags.join(', ')}</span>
                <div class="small">{item.description}</div>
                <button type="button" class="link" onClick={() => props.onPick(item as Item)}>Install</button>
              </li>
            )}
          </For>
        </ul>
      </Show>
    </div>
  );
}
