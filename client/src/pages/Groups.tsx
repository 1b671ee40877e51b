import { createEffect, createResource, createSignal, For, Show } from 'solid-js';
import { createStore, reconcile } from 'solid-js/store';
import { groupCreate, visibilities } from '@hub/contract';
import { api, can, epoch } from '../api';
import { Field, inWords, Notice, useAction } from '../ui';

export function Groups() {
  const [groups, { refetch }] = createResource(epoch, () => api().groups.list.query());
  // Cards keyed by group id: a refetch updates them in place instead of redrawing them under the user's hand.
  const [list, setList] = createStore<NonNullable<ReturnType<typeof groups>>>([]);
  createEffect(() => {
    const fresh = groups();
    if (fresh) setList(reconcile(fresh, { key: 'id' }));
  });
  const [servers] = createResource(epoch, () => api().servers.list.query());
  const [name, setName] = createSignal('');
  const [description, setDescription] = createSignal('');
  const [error, setError] = createSignal<string | null>(null);
  const action = useAction();

  const create = async (e: Event) => {
    e.preventDefault();
    const parsed = groupCreate.safeParse({ name: name(), description: description() || undefined });
    if (!parsed.success) return setError(inWords(parsed.error.issues[0]! as never));
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
      <For each={list}>
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
              <Show when={can('groups:write')}>
                <label>Visibility <select aria-label={`Visibility of ${g.name}`} value={g.visibility} onChange={(e) => void action.run('Visibility saved', () => api().groups.update.mutate({ id: g.id, visibility: e.currentTarget.value as never })).then(() => refetch())}>
                  <For each={visibilities}>{(v) => <option value={v}>{v}</option>}</For>
                </select></label>
              </Show>
              <For each={g.serverConfigs}>
                {(sc) => <GroupServer group={g} config={sc} server={servers()?.find((s) => s.name === sc.name)} onSaved={() => void refetch()} />}
              </For>
              <Show when={can('users:read')}><Members group={g} /></Show>
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

type Group = Awaited<ReturnType<ReturnType<typeof api>['groups']['list']['query']>>[number];
type ServerView = Awaited<ReturnType<ReturnType<typeof api>['servers']['list']['query']>>[number];
type Kind = 'tools' | 'prompts' | 'resources';

/**
 * One server of a group: which of its tools, prompts and resources the group
 * offers. Changes are a draft, with all/none per kind, saved together.
 */
function GroupServer(props: { group: Group; config: Group['serverConfigs'][number]; server: ServerView | undefined; onSaved: () => void }) {
  const action = useAction();
  const names = (k: Kind): string[] =>
    k === 'tools' ? (props.server?.tools ?? []).map((t) => t.name) : k === 'prompts' ? (props.server?.prompts ?? []).map((p) => p.name) : ((props.server as { resources?: Array<{ uri: string }> } | undefined)?.resources ?? []).map((r) => r.uri);
  const start = (k: Kind) => new Set(props.config[k] === 'all' ? names(k) : props.config[k]);
  // What is saved, as the server list (loaded on its own) and the group say; a draft once edited.
  const saved = () => ({ tools: start('tools'), prompts: start('prompts'), resources: start('resources') });
  const [edited, setEdited] = createSignal<Record<Kind, Set<string>> | null>(null);
  const draft = () => edited() ?? saved();
  const dirty = () => edited() !== null;
  const set = (k: Kind, next: Set<string>) => setEdited({ ...draft(), [k]: next });
  const toggle = (k: Kind, n: string, on: boolean) => {
    const next = new Set(draft()[k]);
    if (on) next.add(n);
    else next.delete(n);
    set(k, next);
  };
  const save = () =>
    action
      .run(`Selection of ${props.config.name} saved`, () => {
        const pick = (k: Kind) => {
          const chosen = names(k).filter((n) => draft()[k].has(n));
          return chosen.length === names(k).length ? ('all' as const) : chosen;
        };
        return api().groups.setSelections.mutate({ id: props.group.id, serverName: props.config.name, tools: pick('tools'), prompts: pick('prompts'), resources: pick('resources') });
      })
      .then(() => (setEdited(null), props.onSaved()));
  const writable = () => can('groups:write');
  return (
    <div class="group-server" data-group-server={props.config.name}>
      <strong>{props.config.name}</strong>
      <Show when={writable()}>
        <button class="link" onClick={() => void action.run(`${props.config.name} removed`, () => api().groups.removeServer.mutate({ id: props.group.id, serverName: props.config.name })).then(props.onSaved)}>Remove</button>
      </Show>
      <For each={['tools', 'prompts', 'resources'] as const}>
        {(k) => (
          <Show when={names(k).length}>
            <div class="tools" data-kind={k}>
              <span class="muted small">{k}</span>
              <Show when={writable()}>
                <button type="button" class="link" aria-label={`Select all ${k} of ${props.config.name}`} onClick={() => set(k, new Set(names(k)))}>all</button>
                <button type="button" class="link" aria-label={`Select no ${k} of ${props.config.name}`} onClick={() => set(k, new Set())}>none</button>
              </Show>
              <For each={names(k)}>
                {(n) => <label class="inline"><input type="checkbox" aria-label={`${props.group.name} ${props.config.name} ${n}`} checked={draft()[k].has(n)} disabled={!writable()} onChange={(e) => toggle(k, n, e.currentTarget.checked)} /> {n}</label>}
              </For>
            </div>
          </Show>
        )}
      </For>
      <Show when={writable() && dirty()}>
        <button type="button" onClick={() => void save()} disabled={action.busy()}>Save selection</button>
      </Show>
      <Notice message={action.message()} />
    </div>
  );
}

/** The users who may use a group, added and removed from the group itself. */
function Members(props: { group: Group }) {
  const action = useAction();
  const [users, { refetch }] = createResource(epoch, () => api().users.list.query());
  const members = () => (users() ?? []).filter((u) => (u.groups ?? []).includes(props.group.id) || (u.groups ?? []).includes(props.group.name));
  const others = () => (users() ?? []).filter((u) => u.role !== 'admin' && !members().includes(u));
  const setGroups = (username: string, groups: string[]) => action.run('Members saved', () => api().users.update.mutate({ username, groups } as never)).then(() => refetch());
  return (
    <div class="members" aria-label={`Members of ${props.group.name}`}>
      <span class="muted small">members</span>
      <For each={members()} fallback={<span class="muted small"> none</span>}>
        {(u) => (
          <span class="chip" data-member={u.username}>
            {u.username}
            <Show when={can('users:write')}>
              <button class="link" aria-label={`Remove ${u.username} from ${props.group.name}`} onClick={() => void setGroups(u.username, (u.groups ?? []).filter((x) => x !== props.group.id && x !== props.group.name))}>×</button>
            </Show>
          </span>
        )}
      </For>
      <Show when={can('users:write') && others().length}>
        <select aria-label={`Add a member to ${props.group.name}`} onChange={(e) => e.currentTarget.value && void setGroups(e.currentTarget.value, [...(others().find((u) => u.username === e.currentTarget.value)?.groups ?? []), props.group.id])}>
          <option value="">add a member…</option>
          <For each={others()}>{(u) => <option value={u.username}>{u.username}</option>}</For>
        </select>
      </Show>
      <Notice message={action.message()} />
    </div>
  );
}
