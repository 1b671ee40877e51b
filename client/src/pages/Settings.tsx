import { createResource, createSignal, For, Show } from 'solid-js';
import { api, epoch } from '../api';
import { Notice, useAction } from '../ui';

const routingFlags = ['enableGlobalRoute', 'enableGroupNameRoute', 'enableBearerAuth', 'skipAuth'] as const;
const policyFlags = ['requireUppercase', 'requireLowercase', 'requireNumbers', 'requireSpecialChars', 'preventCommonPasswords'] as const;

export function Settings() {
  const [settings, { refetch }] = createResource(epoch, () => api().settings.get.query());
  const action = useAction();
  const save = (label: string, body: Record<string, unknown>) => action.run(label, () => api().settings.updateSystemConfig.mutate(body as never)).then(() => refetch());
  const download = async () => {
    const data = await api().settings.export.query();
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
    a.download = 'mcp_settings.json';
    a.click();
  };
  const sys = () => settings()?.systemConfig ?? {};
  const [smartStatus, smartCtl] = createResource(epoch, () => api().smart.status.query().catch(() => null));
  const [query, setQuery] = createSignal('');
  const [hits, setHits] = createSignal<Array<{ name: string; score: number; description: string }>>([]);
  return (
    <section>
      <h1>Settings</h1>
      <Notice message={action.message()} />
      {/* Forms appear once the values are in: typing into a form the first load then overwrote was lost. */}
      <Show when={settings()} fallback={<p class="muted">Loading settings…</p>}>
      <div class="card form">
        <h2>Routing</h2>
        <For each={[...routingFlags]}>
          {(flag) => (
            <label class="inline">
              <input type="checkbox" aria-label={flag} checked={(sys().routing as Record<string, boolean> | undefined)?.[flag] ?? flag !== 'skipAuth'} onChange={(e) => void save(`${flag} saved`, { routing: { [flag]: e.currentTarget.checked } })} /> {flag}
            </label>
          )}
        </For>
      </div>
      <form class="card form" aria-label="Install settings" onSubmit={(e) => { e.preventDefault(); const f = new FormData(e.currentTarget); void save('Install settings saved', { install: Object.fromEntries([...f.entries()].map(([k, v]) => [k, String(v)])) }); }}>
        <h2>Install</h2>
        <label>Python index URL <input name="pythonIndexUrl" value={sys().install?.pythonIndexUrl ?? ''} /></label>
        <label>JS package registry <input name="jsPackageRegistry" value={sys().install?.jsPackageRegistry ?? ''} /></label>
        <label>Public base URL <input name="baseUrl" value={sys().install?.baseUrl ?? ''} /></label>
        <button type="submit">Save</button>
      </form>
      <form class="card form" aria-label="Password policy" onSubmit={(e) => { e.preventDefault(); const f = new FormData(e.currentTarget); void save('Password policy saved', { passwordPolicy: { minLength: Number(f.get('minLength')), preventReuse: Number(f.get('preventReuse')), maxAge: Number(f.get('maxAge')), ...Object.fromEntries(policyFlags.map((k) => [k, f.get(k) === 'on'])) } }); }}>
        <h2>Password policy</h2>
        <label>Minimum length <input name="minLength" type="number" min="6" value={sys().passwordPolicy?.minLength ?? 6} /></label>
        <For each={[...policyFlags]}>
          {(k) => <label class="inline"><input name={k} type="checkbox" checked={(sys().passwordPolicy as Record<string, unknown> | undefined)?.[k] === true} /> {k}</label>}
        </For>
        <label>Prevent reuse of the last N passwords <input name="preventReuse" type="number" min="0" value={sys().passwordPolicy?.preventReuse ?? 0} /></label>
        <label>Maximum age (seconds, 0 = none) <input name="maxAge" type="number" min="0" value={sys().passwordPolicy?.maxAge ?? 0} /></label>
        <button type="submit">Save</button>
      </form>
      <form class="card form" aria-label="Smart routing" onSubmit={(e) => { e.preventDefault(); const f = new FormData(e.currentTarget); void save('Smart routing saved', { smartRouting: { enabled: f.get('enabled') === 'on', dbUrl: String(f.get('dbUrl')), providerApiBaseUrl: String(f.get('providerApiBaseUrl')), providerApiKey: String(f.get('providerApiKey')), providerApiEmbeddingModel: String(f.get('providerApiEmbeddingModel')) } }); }}>
        <h2>Smart routing</h2>
        <p class="muted" data-testid="smart-status">
          <Show when={smartStatus()}>{(st) => `${st().tools} tools indexed, ${st().embedded} embedded, ${st().mode} search${st().lastError ? `; last error: ${st().lastError}` : ''}`}</Show>
          {' '}<button type="button" class="link" onClick={() => void action.run('Reindexed', () => api().smart.reindex.mutate()).then(() => smartCtl.refetch())}>Reindex</button>
        </p>
        <div class="inline-form">
          <input aria-label="Try a query" placeholder="Try a query" value={query()} onInput={(e) => setQuery(e.currentTarget.value)} />
          <button type="button" onClick={() => void action.run('Searched', () => api().smart.search.query({ query: query(), limit: 5 })).then((r) => r && setHits(r))}>Search</button>
        </div>
        <ol data-testid="smart-hits"><For each={hits()}>{(h) => <li><b>{h.name}</b> <span class="muted">{h.score} {h.description}</span></li>}</For></ol>
        <label class="inline"><input name="enabled" type="checkbox" checked={sys().smartRouting?.enabled ?? false} /> enabled</label>
        <label>Database URL <input name="dbUrl" value={sys().smartRouting?.dbUrl ?? ''} /></label>
        <label>Embeddings API base URL <input name="providerApiBaseUrl" value={sys().smartRouting?.providerApiBaseUrl ?? ''} /></label>
        <label>Embeddings API key <input name="providerApiKey" type="password" value={sys().smartRouting?.providerApiKey ?? ''} /></label>
        <label>Embedding model <input name="providerApiEmbeddingModel" value={sys().smartRouting?.providerApiEmbeddingModel ?? ''} /></label>
        <button type="submit">Save</button>
      </form>
      <form class="card form" aria-label="Router service" onSubmit={(e) => { e.preventDefault(); const f = new FormData(e.currentTarget); void save('Router service saved', { mcpRouter: Object.fromEntries([...f.entries()].map(([k, v]) => [k, String(v)])) }); }}>
        <h2>Router service</h2>
        <label>API key <input name="apiKey" type="password" value={sys().mcpRouter?.apiKey ?? ''} /></label>
        <label>Referer <input name="referer" value={sys().mcpRouter?.referer ?? ''} /></label>
        <label>Title <input name="title" value={sys().mcpRouter?.title ?? ''} /></label>
        <label>Base URL <input name="baseUrl" value={sys().mcpRouter?.baseUrl ?? ''} /></label>
        <button type="submit">Save</button>
      </form>
      </Show>
      <div class="card"><h2>Settings file</h2><button onClick={() => void download()}>Export mcp_settings.json</button></div>
    </section>
  );
}
