import { createResource, createSignal, For, Show } from 'solid-js';
import { setSecretInput } from '@hub/contract';
import { api, epoch } from '../api';
import { inWords, Notice, useAction } from '../ui';

/**
 * The caller's own credentials for servers that use `${user.secret.NAME}`:
 * set or replaced, removed, never shown again once saved.
 */
export function SecretsPanel(props: { keyId?: string; keyName?: string }) {
  const act = useAction();
  const [secrets, { refetch }] = createResource(epoch, () => api().secrets.list.query(props.keyId ? { keyId: props.keyId } : undefined));
  const [problem, setProblem] = createSignal<string | null>(null);
  const save = async (e: SubmitEvent, name: string) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const parsed = setSecretInput.safeParse({ name, value: String(new FormData(form).get('value') ?? '') });
    if (!parsed.success) return void setProblem(`${name}: value ${inWords(parsed.error.issues[0]! as never)}`);
    setProblem(null);
    if (await act.run(`${name} saved`, () => api().secrets.set.mutate({ ...parsed.data, keyId: props.keyId }))) (form.reset(), refetch());
  };
  const remove = async (name: string) => {
    if (await act.run(`${name} removed`, () => api().secrets.remove.mutate({ name, keyId: props.keyId }))) refetch();
  };
  return (
    <div class="card" aria-label={props.keyName ? `Secrets of key ${props.keyName}` : 'Your secrets for servers'}>
      <h2>{props.keyName ? `Secrets of key ${props.keyName}` : 'Your secrets for servers'}</h2>
      <p class="muted">{props.keyName ? 'Values this key sends instead of yours.' : 'Servers that act as you ask for your own credentials.'} Saved values are never shown again.</p>
      <table>
        <thead><tr><th>Name</th><th>Used by</th><th>State</th><th /></tr></thead>
        <tbody>
          <Show when={(secrets() ?? []).length === 0}><tr><td colSpan={4} class="muted">No server needs one</td></tr></Show>
          <For each={secrets() ?? []}>
            {(s) => (
              <tr data-secret={s.name}>
                <td><code>{s.name}</code></td>
                <td>{s.servers.join(', ') || '—'}</td>
                <td>{s.set ? <span class="badge badge-connected">{s.inherited ? 'yours is used' : `set${s.updatedAt ? ` ${new Date(s.updatedAt).toLocaleDateString()}` : ''}`}</span> : <span class="badge badge-error">missing</span>}</td>
                <td>
                  <form class="inline-form" aria-label={`Set ${s.name}`} onSubmit={(e) => void save(e, s.name)}>
                    <input name="value" type="password" autocomplete="off" aria-label={`Value of ${s.name}`} placeholder={s.set ? 'replace' : 'value'} />
                    <button type="submit" disabled={act.busy()}>Save</button>
                  </form>
                  <Show when={s.set && !s.inherited}><button class="link danger" onClick={() => void remove(s.name)} aria-label={`Remove ${s.name}`}>Remove</button></Show>
                </td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
      <Show when={problem()}><p class="field-error" role="alert">{problem()}</p></Show>
      <Notice message={act.message()} />
    </div>
  );
}
