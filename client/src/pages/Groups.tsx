import { createResource, createSignal, For, Show } from 'solid-js';
import { groupCreate } from '@hub/contract';
import { api, can, epoch } from '../api';
import { Field, Notice, useAction } from '../ui';

export function Groups() {
  const [groups, { refetch }] = createResource(epoch, () => api().groups.list.query());
  const [servers] = createResource(epoch, () => api().servers.list.query());
  const [name, setName] = createSignal('');
  const [description, setDescription] = createSignal('');
  const [error, setError] = createSignal<string | null>(null);
  const action = useAction();

  const create = async (e: Event) => {
    e.preventDefault();
    const parsed = groupCreate.safeParse({ name: name(), description: description() || undefined });
    if (!parsed.success) return setError(parsed.error.issues[0]!.message);
    setError(null);
    if (await action.run(`Group ${name()} created`, () => api().groups.create.mutate(parsed.data))) {
      setName('');
      setDescription('');
      void refetch();
    }
  };

  return (
    <section>
      <h1>Groups</h1>
      <Notice message={action.message()} />
      <For each={groups() ?? []}>
        {(g) => {
          const endpoint = `${location.origin}/api/mcp/group/${encodeURIComponent(g.name)}`;
          const clientConfig = JSON.stringify({ mcpServers: { [`hub-${g.name}`]: { type: 'streamable-http', url: endpoint, headers: { Authorization: 'Bearer <your key>' } } } }, null, 2);
          return (
            <div class="card" data-group={g.name}>
              <h2>{g.name} <Show when={can('groups:write')}><button class="link danger" onClick={() => confirm(`Delete group ${g.name}?`) && void action.run(`Group ${g.name} deleted`, () => api().groups.remove.mutate({ id: g.id })).then(() => refetch())}>Delete</button></Show></h2>
              <p class="muted">
                {g.description}{' '}
                <Show when={can('groups:write')}><button class="link" onClick={() => { const d = prompt(`Description of ${g.name}`, g.description ?? ''); if (d !== null) void action.run('Description saved', () => api().groups.update.mutate({ id: g.id, description: d })).then(() => refetch()); }}>Edit description</button></Show>
              </p>
              <p>Endpoint: <code>{endpoint}</code> <button class="link" onClick={() => void navigator.clipboard?.writeText(clientConfig)}>Copy client config</button></p>
              <For each={g.serverConfigs}>
                {(sc) => {
                  const tools = () => servers()?.find((s) => s.name === sc.name)?.tools ?? [];
                  const selected = (t: string) => sc.tools === 'all' || sc.tools.includes(t);
                  const setTool = (t: string, on: boolean) => {
                    const current = sc.tools === 'all' ? tools().map((x) => x.name) : sc.tools;
                    const next = on ? [...new Set([...current, t])] : current.filter((x) => x !== t);
                    void action.run(`Selection of ${sc.name} saved`, () => api().groups.setSelection.mutate({ id: g.id, serverName: sc.name, kind: 'tools', selection: next })).then(() => refetch());
                  };
                  return (
                    <div class="group-server">
                      <strong>{sc.name}</strong>
                      <Show when={can('groups:write')}><button class="link" onClick={() => void action.run(`${sc.name} removed`, () => api().groups.removeServer.mutate({ id: g.id, serverName: sc.name })).then(() => refetch())}>Remove</button></Show>
                      <div class="tools">
                        <For each={tools()}>
                          {(t) => <label class="inline"><input type="checkbox" aria-label={`${g.name} ${sc.name} ${t.name}`} checked={selected(t.name)} disabled={!can('groups:write')} onChange={(e) => setTool(t.name, e.currentTarget.checked)} /> {t.name}</label>}
                        </For>
                      </div>
                    </div>
                  );
                }}
              </For>
              <Show when={can('groups:write')}><label>Add server <select aria-label={`Add server to ${g.name}`} onChange={(e) => e.currentTarget.value && void action.run('Server added', () => api().groups.addServer.mutate({ id: g.id, serverName: e.currentTarget.value })).then(() => refetch())}>
                <option value="">choose…</option>
                <For each={(servers() ?? []).filter((s) => !g.servers.includes(s.name))}>{(s) => <option value={s.name}>{s.name}</option>}</For>
              </select></label></Show>
            </div>
          );
        }}
      </For>
      <Show when={can('groups:write')}>
      <form class="card form" onSubmit={create} aria-label="Create group">
        <h2>Create a group</h2>
        <Field label="Name" error={error()}><input name="groupName" value={name()} onInput={(e) => setName(e.currentTarget.value)} /></Field>
        <Field label="Description"><input name="groupDescription" value={description()} onInput={(e) => setDescription(e.currentTarget.value)} /></Field>
        <button type="submit" disabled={action.busy()}>Create group</button>
      </form>
      </Show>
    </section>
  );
}
