import { createResource, createSignal, For, Show } from 'solid-js';
import { roles, userCreate } from '@hub/contract';
import { api, epoch } from '../api';
import { Field, Notice, useAction } from '../ui';

export function Users() {
  const [users, { refetch }] = createResource(epoch, () => api().users.list.query());
  const [keys, keysCtl] = createResource(epoch, () => api().keys.list.query());
  const [servers] = createResource(epoch, () => api().servers.list.query());
  const [groupList] = createResource(epoch, () => api().groups.list.query());
  const setAccess = (username: string, change: { servers?: string[]; groups?: string[] }) =>
    void action.run(`Access of ${username} saved`, () => api().users.update.mutate({ username, ...change })).then(() => refetch());
  const [form, setForm] = createSignal({ username: '', password: '', role: 'user', servers: [] as string[] });
  const [errors, setErrors] = createSignal<Record<string, string>>({});
  const [newKey, setNewKey] = createSignal<string | null>(null);
  const [keyName, setKeyName] = createSignal('');
  const action = useAction();

  const create = async (e: Event) => {
    e.preventDefault();
    const parsed = userCreate.safeParse(form());
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
      return;
    }
    setErrors({});
    if (await action.run(`User ${form().username} created`, () => api().users.create.mutate(parsed.data))) {
      setForm({ username: '', password: '', role: 'user', servers: [] });
      void refetch();
    } else {
      const m = /^(\w+):/.exec(action.message()?.text ?? '');
      if (m) setErrors({ [m[1]!]: action.message()!.text });
    }
  };

  return (
    <section>
      <h1>Users</h1>
      <Notice message={action.message()} />
      <table class="list" aria-label="Users">
        <thead><tr><th>User</th><th>Role</th><th>Servers</th><th /></tr></thead>
        <tbody>
          <For each={users() ?? []}>
            {(u) => (
              <tr data-user={u.username}>
                <td>{u.username}</td>
                <td>
                  <select aria-label={`Role of ${u.username}`} value={u.role} onChange={(e) => void action.run(`Role of ${u.username} changed`, () => api().users.update.mutate({ username: u.username, role: e.currentTarget.value as never })).then(() => refetch())}>
                    <For each={[...roles]}>{(r) => <option value={r}>{r}</option>}</For>
                  </select>
                </td>
                <td>
                  <details>
                    <summary>{u.servers.length} servers, {u.groups.length} groups</summary>
                    <For each={servers() ?? []}>
                      {(s) => <label class="inline"><input type="checkbox" aria-label={`${u.username} server ${s.name}`} checked={u.servers.includes(s.name)} onChange={(e) => setAccess(u.username, { servers: e.currentTarget.checked ? [...u.servers, s.name] : u.servers.filter((x) => x !== s.name) })} /> {s.name}</label>}
                    </For>
                    <For each={groupList() ?? []}>
                      {(g) => <label class="inline"><input type="checkbox" aria-label={`${u.username} group ${g.name}`} checked={u.groups.includes(g.id)} onChange={(e) => setAccess(u.username, { groups: e.currentTarget.checked ? [...u.groups, g.id] : u.groups.filter((x) => x !== g.id) })} /> group {g.name}</label>}
                    </For>
                  </details>
                </td>
                <td>
                  <button class="link" onClick={() => { const p = prompt(`New password for ${u.username}`); if (p) void action.run('Password reset', () => api().users.update.mutate({ username: u.username, password: p })); }}>Reset password</button>
                  <button class="link danger" onClick={() => confirm(`Delete user ${u.username}?`) && void action.run(`User ${u.username} deleted`, () => api().users.remove.mutate({ username: u.username })).then(() => refetch())}>Delete</button>
                </td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
      <form class="card form" onSubmit={create} aria-label="Create user">
        <h2>Create a user</h2>
        <Field label="Username" error={errors().username}><input name="newUsername" value={form().username} onInput={(e) => setForm({ ...form(), username: e.currentTarget.value })} /></Field>
        <Field label="Password" error={errors().password}><input name="newPassword" type="password" value={form().password} onInput={(e) => setForm({ ...form(), password: e.currentTarget.value })} /></Field>
        <Field label="Role"><select name="newRole" value={form().role} onChange={(e) => setForm({ ...form(), role: e.currentTarget.value })}><For each={[...roles]}>{(r) => <option value={r}>{r}</option>}</For></select></Field>
        <fieldset><legend>Servers</legend>
          <For each={servers() ?? []}>
            {(s) => <label class="inline"><input type="checkbox" aria-label={`Grant ${s.name}`} checked={form().servers.includes(s.name)} onChange={(e) => setForm({ ...form(), servers: e.currentTarget.checked ? [...form().servers, s.name] : form().servers.filter((x) => x !== s.name) })} /> {s.name}</label>}
          </For>
        </fieldset>
        <button type="submit" disabled={action.busy()}>Create user</button>
      </form>
      <div class="card">
        <h2>API keys</h2>
        <Show when={newKey()}><p class="notice">Copy this key now, it is not shown again: <code data-testid="new-key">{newKey()}</code></p></Show>
        <ul><For each={keys() ?? []}>{(k) => <li>{k.name} <span class="muted">{k.prefix}… {k.permissions.join(', ')}</span> <button class="link danger" onClick={() => void action.run('Key revoked', () => api().keys.revoke.mutate({ id: k.id })).then(() => keysCtl.refetch())}>Revoke</button></li>}</For></ul>
        <form class="inline-form" onSubmit={(e) => { e.preventDefault(); void action.run('Key created', () => api().keys.create.mutate({ name: keyName(), permissions: ['tools:read', 'tools:execute', 'servers:read'] })).then((k) => { if (k) { setNewKey(k.key); setKeyName(''); void keysCtl.refetch(); } }); }}>
          <input aria-label="Key name" placeholder="Key name" value={keyName()} onInput={(e) => setKeyName(e.currentTarget.value)} />
          <button type="submit">Create MCP key</button>
        </form>
      </div>
    </section>
  );
}
