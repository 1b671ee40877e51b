import { createResource, For } from 'solid-js';
import { api } from '../api';
import { Notice, useAction } from '../ui';

const routingFlags = ['enableGlobalRoute', 'enableGroupNameRoute', 'enableBearerAuth', 'skipAuth'] as const;

export function Settings() {
  const [settings, { refetch }] = createResource(() => api().settings.get.query());
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
  return (
    <section>
      <h1>Settings</h1>
      <Notice message={action.message()} />
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
      <form class="card form" aria-label="Password policy" onSubmit={(e) => { e.preventDefault(); const f = new FormData(e.currentTarget); void save('Password policy saved', { passwordPolicy: { minLength: Number(f.get('minLength')), requireNumbers: f.get('requireNumbers') === 'on' } }); }}>
        <h2>Password policy</h2>
        <label>Minimum length <input name="minLength" type="number" min="6" value={sys().passwordPolicy?.minLength ?? 6} /></label>
        <label class="inline"><input name="requireNumbers" type="checkbox" checked={sys().passwordPolicy?.requireNumbers ?? false} /> require numbers</label>
        <button type="submit">Save</button>
      </form>
      <div class="card"><h2>Settings file</h2><button onClick={() => void download()}>Export mcp_settings.json</button></div>
    </section>
  );
}
