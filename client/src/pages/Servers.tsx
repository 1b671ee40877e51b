import { createEffect, createResource, createSignal, For, onCleanup, Show } from 'solid-js';
import { createStore, reconcile } from 'solid-js/store';
import { resourceName, serverConfigInput } from '@hub/contract';
import { api, can, epoch } from '../api';
import { Field, inWords, KeyValueEditor, Notice, StatusBadge, useAction } from '../ui';
import { RunPrompt, TryTool } from './TryTool';
import { ArgsEditor } from '../args-editor';
import { Catalogue } from './Catalogue';
import { ToolChangeReview } from './ToolChange';

type Form = { name: string; type: string; command: string; args: string[]; url: string; openapiUrl: string; openapiSchema: string; env: Record<string, string>; headers: Record<string, string> };
const emptyForm = (): Form => ({ name: '', type: 'stdio', command: '', args: [''], url: '', openapiUrl: '', openapiSchema: '', env: {}, headers: {} });

function toConfig(f: Form): Record<string, unknown> {
  if (f.type === 'stdio') return { type: 'stdio', command: f.command, args: f.args.filter((a) => a !== ''), env: f.env };
  if (f.type === 'openapi') {
    const openapi: Record<string, unknown> = {};
    if (f.openapiUrl) openapi.url = f.openapiUrl;
    if (f.openapiSchema.trim()) openapi.schema = JSON.parse(f.openapiSchema);
    return { type: 'openapi', openapi, headers: f.headers };
  }
  return { type: f.type, url: f.url, headers: f.headers };
}

export function Servers() {
  const [servers, { refetch }] = createResource(epoch, () => api().servers.list.query());
  // Kept by name (servers, their tools and prompts): a live refresh updates rows in place,
  // so an open try-it form or edit is not redrawn under the user's hand.
  const [list, setList] = createStore<NonNullable<ReturnType<typeof servers>>>([]);
  createEffect(() => {
    const fresh = servers();
    if (fresh) setList(reconcile(fresh, { key: 'name' }));
  });
  // Live: any status or tool-list change, and any settings change (toggles, pins, from any
  // console or replica), refreshes the snapshot (debounced).
  let timer: ReturnType<typeof setTimeout> | undefined;
  const later = { onData: () => (clearTimeout(timer), (timer = setTimeout(() => void refetch(), 150))) };
  const subs = [api().servers.onStatus.subscribe(undefined, later), api().system.onSettingsChanged.subscribe(undefined, later)];
  onCleanup(() => (subs.forEach((s) => s.unsubscribe()), clearTimeout(timer)));

  const [form, setForm] = createSignal<Form>(emptyForm());
  const [errors, setErrors] = createSignal<Record<string, string>>({});
  const [selected, setSelected] = createSignal<string | null>(null);
  const [importText, setImportText] = createSignal('');
  // Set while the form edits an existing server (its current name).
  const [editing, setEditing] = createSignal<string | null>(null);
  const edit = (s: { name: string; config: Record<string, unknown> }) => {
    const c = s.config as { type?: string; command?: string; args?: string[]; url?: string; env?: Record<string, string>; headers?: Record<string, string>; openapi?: { url?: string; schema?: unknown } };
    setEditing(s.name);
    setForm({
      name: s.name,
      type: c.type ?? (c.command ? 'stdio' : 'sse'),
      command: c.command ?? '',
      args: c.args?.length ? [...c.args] : [''],
      url: c.url ?? '',
      openapiUrl: c.openapi?.url ?? '',
      openapiSchema: c.openapi?.schema ? JSON.stringify(c.openapi.schema, null, 2) : '',
      env: c.env ?? {},
      headers: c.headers ?? {},
    });
    openForm();
  };
  const action = useAction();
  const update = (patch: Partial<Form>) => setForm({ ...form(), ...patch });
  // The add/edit form opens over the page (not at the end of a long list); other panels stay usable.
  let dialog!: HTMLDialogElement;
  function openForm() {
    if (!dialog.open) dialog.show();
    dialog.querySelector<HTMLInputElement>('input[name=name]')?.focus();
  }
  const closeForm = () => (dialog.close(), setEditing(null), setForm(emptyForm()), setErrors({}));

  const submit = async (e: Event) => {
    e.preventDefault();
    const f = form();
    let config: Record<string, unknown>;
    try {
      config = toConfig(f);
    } catch {
      setErrors({ openapiSchema: 'must be valid JSON' });
      return;
    }
    // The server's own schemas, so errors show before a round trip.
    const found: Record<string, string> = {};
    const n = resourceName.safeParse(f.name);
    if (!n.success) found.name = inWords(n.error.issues[0]! as never);
    const c = serverConfigInput.safeParse(config);
    if (!c.success) for (const i of c.error.issues) found[String(i.path[0] === 'openapi' ? 'openapiUrl' : i.path[0])] = inWords(i as never);
    setErrors(found);
    // A new problem replaces an old success notice.
    if (Object.keys(found).length) return action.setMessage(null);
    const was = editing();
    const created = await action.run(was ? `Server ${f.name} saved` : `Server ${f.name} added`, () =>
      was
        ? api().servers.update.mutate({ name: was, config: config as never, ...(f.name !== was ? { newName: f.name } : {}) })
        : api().servers.create.mutate({ name: f.name, config: config as never }),
    );
    if (created) {
      setForm(emptyForm());
      setEditing(null);
      dialog.close();
      void refetch();
    } else {
      const field = /^(?:config\.)?(\w+)/.exec(action.message()?.text ?? '')?.[1];
      if (field) setErrors({ [field === 'openapi' ? 'openapiUrl' : field]: action.message()!.text });
    }
  };

  const importJson = async () => {
    let parsed: { mcpServers?: Record<string, Record<string, unknown>> };
    try {
      parsed = JSON.parse(importText());
    } catch {
      action.setMessage({ ok: false, text: 'Import: not valid JSON' });
      return;
    }
    const entries = Object.entries(parsed.mcpServers ?? {});
    if (!entries.length) return action.setMessage({ ok: false, text: 'Import: no mcpServers found' });
    await action.run(`Imported ${entries.length} server(s)`, async () => {
      for (const [name, config] of entries) {
        // An entry that fails is named, so the operator knows which one to fix.
        await api().servers.create.mutate({ name, config: config as never }).catch((err: Error) => {
          throw new Error(`Import of "${name}": ${err.message}`);
        });
      }
    });
    void refetch();
  };

  const uploadBundle = async (file: File) => {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    await action.run(`Bundle ${file.name} installed`, () => api().servers.importBundle.mutate({ data: btoa(binary) }));
    void refetch();
  };

  return (
    <section>
      <h1>Servers <Show when={can('servers:write')}><button type="button" onClick={() => (setEditing(null), setForm(emptyForm()), setErrors({}), openForm())}>Add a server</button></Show></h1>
      <Notice message={action.message()} />
      <table class="list" aria-label="Servers">
        <thead>
          <tr><th>Name</th><th>Type</th><th>Status</th><th>Tools</th><th>Enabled</th><th /></tr>
        </thead>
        <tbody>
          <For each={list}>
            {(s) => (
              <tr data-server={s.name}>
                <td><button class="link" onClick={() => setSelected(selected() === s.name ? null : s.name)}>{s.name}</button></td>
                <td data-label="Type">{s.type}</td>
                <td data-label="Status">
                  <StatusBadge status={s.status} />
                  <Show when={s.error}><div class="muted small">{s.error}</div></Show>
                  <Show when={s.status === 'oauth_required' && s.authorizationUrl}>
                    <a href={s.authorizationUrl} target="_blank" rel="noreferrer">Authorize</a>
                  </Show>
                </td>
                <td data-label="Tools">
                  {s.tools.length}
                  <Show when={s.tools.filter((t) => t.change).length + s.prompts.filter((p) => (p as { change?: unknown }).change).length}>
                    {(n) => <> <span class="badge badge-error" title="Tools changed upstream since they were pinned">{n()} changed</span></>}
                  </Show>
                </td>
                <td data-label="Enabled">
                  <Show when={can('servers:write')} fallback={s.enabled ? 'yes' : 'no'}>
                    <input type="checkbox" aria-label={`Enable ${s.name}`} checked={s.enabled} onChange={(e) => void action.run(`Server ${s.name} ${e.currentTarget.checked ? 'enabled' : 'disabled'}`, () => api().servers.toggle.mutate({ name: s.name, enabled: e.currentTarget.checked }))} />
                  </Show>
                </td>
                <td>
                  <Show when={can('servers:write')}>
                    <button class="link" onClick={() => edit(s)}>Edit</button>
                    <button class="link danger" onClick={() => confirm(`Delete server ${s.name}?`) && void action.run(`Server ${s.name} deleted`, () => api().servers.remove.mutate({ name: s.name })).then(() => refetch())}>Delete</button>
                  </Show>
                </td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
      <Show when={list.find((s) => s.name === selected())}>
        {(s) => <ServerDetail server={s()} onChange={() => void refetch()} />}
      </Show>

      <Show when={can('servers:write')}>
      <Catalogue
        onPick={(item) => {
          setEditing(null);
          setForm({ ...emptyForm(), name: item.name, type: 'stdio', command: item.command, args: item.args.length ? [...item.args] : [''], env: Object.fromEntries(Object.keys(item.env).map((k) => [k, ''])) });
          openForm();
        }}
      />
      <dialog ref={dialog} class="form-dialog" aria-label="Server form">
      <form class="card form" onSubmit={submit} aria-label="Add server">
        <button type="button" class="link close" aria-label="Close the form" onClick={closeForm}>×</button>
        <h2>{editing() ? `Edit ${editing()}` : 'Add a server'}</h2>
        <Field label="Name" error={errors().name}><input name="name" value={form().name} onInput={(e) => update({ name: e.currentTarget.value })} /></Field>
        <Field label="Type">
          <select name="type" value={form().type} onChange={(e) => update({ type: e.currentTarget.value })}>
            <option value="stdio">stdio</option><option value="sse">sse</option><option value="streamable-http">streamable-http</option><option value="openapi">openapi</option>
          </select>
        </Field>
        <Show when={form().type === 'stdio'}>
          <Field label="Command" error={errors().command}><input name="command" value={form().command} onInput={(e) => update({ command: e.currentTarget.value })} /></Field>
          <ArgsEditor command={form().command} args={form().args} onChange={(command, args) => update({ command, args })} />
          <KeyValueEditor label="Environment" value={form().env} onChange={(env) => update({ env })} />
        </Show>
        <Show when={form().type === 'sse' || form().type === 'streamable-http'}>
          <Field label="URL" error={errors().url}><input name="url" value={form().url} onInput={(e) => update({ url: e.currentTarget.value })} /></Field>
        </Show>
        <Show when={form().type === 'openapi'}>
          <Field label="OpenAPI document URL" error={errors().openapiUrl}><input name="openapiUrl" value={form().openapiUrl} onInput={(e) => update({ openapiUrl: e.currentTarget.value })} /></Field>
          <Field label="…or paste the schema (JSON)" error={errors().openapiSchema}><textarea name="openapiSchema" rows={4} value={form().openapiSchema} onInput={(e) => update({ openapiSchema: e.currentTarget.value })} /></Field>
        </Show>
        <Show when={form().type !== 'stdio'}>
          <KeyValueEditor label="Headers" value={form().headers} onChange={(headers) => update({ headers })} />
        </Show>
        <button type="submit" disabled={action.busy()}>{action.busy() ? 'Saving…' : editing() ? 'Save server' : 'Add server'}</button>
        <button type="button" class="link" onClick={closeForm}>Cancel</button>
      </form>
      </dialog>

      <div class="card form">
        <h2>Import</h2>
        <Field label='Claude-style JSON ({"mcpServers": {...}})'><textarea name="import" rows={4} value={importText()} onInput={(e) => setImportText(e.currentTarget.value)} /></Field>
        <button onClick={importJson} disabled={action.busy()}>Import</button>
        <Field label="MCP bundle (.mcpb)"><input type="file" accept=".mcpb,.zip" onChange={(e) => e.currentTarget.files?.[0] && void uploadBundle(e.currentTarget.files[0])} /></Field>
      </div>
      </Show>
    </section>
  );
}

type ServerView = Awaited<ReturnType<ReturnType<typeof api>['servers']['list']['query']>>[number];

function ServerDetail(props: { server: ServerView; onChange: () => void }) {
  const action = useAction();
  const [editing, setEditing] = createSignal<{ name: string; text: string } | null>(null);
  const [trying, setTrying] = createSignal<string | null>(null);
  const [filter, setFilter] = createSignal('');
  const [running, setRunning] = createSignal<string | null>(null);
  const toggle = (kind: 'tools' | 'prompts', item: string, enabled: boolean) =>
    action.run(`${item} ${enabled ? 'enabled' : 'disabled'}`, () => api().servers.toggleItem.mutate({ kind, server: props.server.name, item, enabled })).then(props.onChange);
  // The tools the search shows; bulk switches act on exactly those.
  const shownTools = () => {
    const q = filter().trim().toLowerCase();
    return props.server.tools.filter((t) => !q || t.name.toLowerCase().includes(q) || (t.description ?? '').toLowerCase().includes(q));
  };
  const setAll = (enabled: boolean) => {
    const targets = shownTools().filter((t) => t.enabled !== enabled);
    return action
      .run(`${targets.length} tool(s) ${enabled ? 'enabled' : 'disabled'}`, async () => {
        for (const t of targets) await api().servers.toggleItem.mutate({ kind: 'tools', server: props.server.name, item: t.name, enabled });
      })
      .then(props.onChange);
  };
  const describe = (kind: 'tools' | 'prompts', item: string, description: string) =>
    action.run('Description saved', () => api().servers.describeItem.mutate({ kind, server: props.server.name, item, description })).then(() => (setEditing(null), props.onChange()));
  return (
    <div class="card detail" aria-label={`Server ${props.server.name}`}>
      <h2>{props.server.name}</h2>
      <Show when={props.server.callerSecrets?.length}>
        <p class="muted" data-testid="caller-secrets">Each caller uses their own {props.server.callerSecrets!.join(', ')}: set yours on the <a href="#/account">Account</a> page.</p>
      </Show>
      <Notice message={action.message()} />
      <h3>Tools</h3>
      <div class="toolbar">
        <input aria-label="Search tools" placeholder="search tools" value={filter()} onInput={(e) => setFilter(e.currentTarget.value)} />
        <Show when={can('tools:write')}>
          <button type="button" onClick={() => void setAll(true)}>Enable shown</button>
          <button type="button" onClick={() => void setAll(false)}>Disable shown</button>
        </Show>
      </div>
      <ul class="items">
        <For each={shownTools()}>
          {(t) => (
            <li data-tool={t.name}>
              <label class="inline"><input type="checkbox" aria-label={`Enable tool ${t.name}`} checked={t.enabled} onChange={(e) => void toggle('tools', t.name, e.currentTarget.checked)} /> <strong>{t.name}</strong></label>
              <span class="muted"> {t.description}</span>
              <Show when={can('tools:write')}><button class="link" onClick={() => setEditing({ name: t.name, text: t.description })}>Edit description</button></Show>
              <Show when={t.change}>{(change) => <ToolChangeReview server={props.server.name} tool={t.name} change={change()} onDecided={props.onChange} />}</Show>
              <Show when={t.originalDescription !== undefined}>
                <button class="link" onClick={() => void action.run('Description reset', () => api().servers.resetItemDescription.mutate({ kind: 'tools', server: props.server.name, item: t.name })).then(props.onChange)}>Reset</button>
              </Show>
              <Show when={can('tools:execute')}><button class="link" onClick={() => setTrying(trying() === t.name ? null : t.name)}>Try it</button></Show>
              <Show when={editing()?.name === t.name}>
                <form class="inline-form" onSubmit={(e) => { e.preventDefault(); void describe('tools', t.name, editing()!.text); }}>
                  <input aria-label="Description" value={editing()!.text} onInput={(e) => setEditing({ name: t.name, text: e.currentTarget.value })} />
                  <button type="submit">Save</button>
                </form>
              </Show>
              <Show when={trying() === t.name}>
                <TryTool server={props.server.name} tool={t.name} schema={t.inputSchema} />
              </Show>
            </li>
          )}
        </For>
      </ul>
      <Show when={props.server.prompts.length}>
        <h3>Prompts</h3>
        <ul class="items">
          <For each={props.server.prompts}>
            {(p) => (
              <li data-prompt={p.name}>
                <label class="inline"><input type="checkbox" aria-label={`Enable prompt ${p.name}`} checked={p.enabled} disabled={!can('tools:write')} onChange={(e) => void toggle('prompts', p.name, e.currentTarget.checked)} /> <strong>{p.name}</strong></label>
                <span class="muted"> {p.description}</span>
                <Show when={can('tools:write')}><button class="link" onClick={() => setEditing({ name: `prompt:${p.name}`, text: p.description ?? '' })}>Edit description</button></Show>
                <Show when={(p as { change?: Parameters<typeof ToolChangeReview>[0]['change'] }).change}>{(change) => <ToolChangeReview server={props.server.name} tool={p.name} kind="prompts" change={change()} onDecided={props.onChange} />}</Show>
                <Show when={can('prompts:execute')}><button class="link" onClick={() => setRunning(running() === p.name ? null : p.name)}>Run</button></Show>
                <Show when={editing()?.name === `prompt:${p.name}`}>
                  <form class="inline-form" onSubmit={(e) => { e.preventDefault(); void describe('prompts', p.name, editing()!.text); }}>
                    <input aria-label="Prompt description" value={editing()!.text} onInput={(e) => setEditing({ name: `prompt:${p.name}`, text: e.currentTarget.value })} />
                    <button type="submit">Save</button>
                  </form>
                </Show>
                <Show when={running() === p.name}>
                  <RunPrompt server={props.server.name} prompt={p.name} args={(p as { arguments?: Array<{ name: string; description?: string; required?: boolean }> }).arguments ?? []} />
                </Show>
              </li>
            )}
          </For>
        </ul>
      </Show>
    </div>
  );
}
