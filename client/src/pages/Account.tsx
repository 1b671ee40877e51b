import { createResource, createSignal, For, Show } from 'solid-js';
import { apiKeyCreate, passwordChange, type Permission } from '@hub/contract';
import { api, epoch, setToken } from '../api';
import { inWords, Notice, useAction } from '../ui';
import { SecretsPanel } from './Secrets';

type Key = { id: string; name: string; owner?: string; permissions: string[]; expiresAt?: string; createdAt?: string; lastUsedAt?: string };

/** What a signed-in user manages for themselves: password, MFA, API keys, secrets for servers, sessions. */
export function Account() {
  // Someone who signs in through an identity provider has no Hub password or second factor to manage here.
  const [me] = createResource(epoch, () => api().auth.verify.query().catch(() => null));
  return (
    <section>
      <h1>Account</h1>
      <Show when={me() !== undefined && !me()?.user.signIn} fallback={<Show when={me()?.user.signIn}><p class="card muted">You sign in through your identity provider: your password and second factor are managed there.</p></Show>}>
        <PasswordForm />
        <MfaPanel />
      </Show>
      <KeysPanel />
      <SecretsPanel />
      <SignOutEverywhere />
    </section>
  );
}

// The new token after a password change reopens the console's connection and
// redraws the page; the confirmation outlives that redraw.
const [changed, setChanged] = createSignal<{ ok: boolean; text: string } | null>(null);

function PasswordForm() {
  const act = useAction();
  const [problem, setProblem] = createSignal<string | null>(null);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = Object.fromEntries(new FormData(form)) as Record<string, string>;
    const parsed = passwordChange.safeParse({ currentPassword: data.currentPassword, newPassword: data.newPassword });
    if (!parsed.success) return void setProblem(parsed.error.issues.map((i) => `${i.path.join('.') === 'newPassword' ? 'New password' : 'Current password'} ${inWords(i as never)}`).join('; '));
    if (data.newPassword !== data.repeat) return void setProblem('The new password and its repetition differ');
    setProblem(null);
    setChanged(null);
    const r = await act.run('Password changed; your other sessions were signed out', () => api().auth.changePassword.mutate(parsed.data));
    if (r) {
      form.reset();
      setChanged(act.message());
      setToken(r.token);
    }
  };
  return (
    <form aria-label="Change password" class="card" onSubmit={submit}>
      <h2>Password</h2>
      <label>Current password <input name="currentPassword" type="password" autocomplete="current-password" required /></label>
      <label>New password <input name="newPassword" type="password" autocomplete="new-password" required /></label>
      <label>Repeat the new password <input name="repeat" type="password" autocomplete="new-password" required /></label>
      <Show when={problem()}><p class="field-error" role="alert">{problem()}</p></Show>
      <button type="submit" disabled={act.busy()}>Change password</button>
      <Notice message={act.message() ?? changed()} />
    </form>
  );
}

function MfaPanel() {
  const act = useAction();
  const [me, { refetch }] = createResource(epoch, () => api().auth.verify.query());
  const [setup, setSetup] = createSignal<{ secret: string; qr: string } | null>(null);
  const enabled = () => Boolean((me() as { user?: { mfaEnabled?: boolean } } | undefined)?.user?.mfaEnabled);
  const begin = async (e: SubmitEvent) => {
    e.preventDefault();
    const password = String(new FormData(e.currentTarget as HTMLFormElement).get('password') ?? '');
    const r = await act.run('Scan the code with your authenticator app, then enter the code it shows', () => api().auth.mfaEnable.mutate({ type: 'totp', password }));
    if (!r) return;
    // Loaded with the panel's first use: most operators never open it.
    const { toDataURL } = await import('qrcode');
    setSetup({ secret: r.secret, qr: await toDataURL(r.otpauthUri, { margin: 1, width: 200 }) });
  };
  const confirm = async (e: SubmitEvent) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget as HTMLFormElement).get('code') ?? '');
    if (await act.run('Two-factor sign-in is on', () => api().auth.mfaVerify.mutate({ code }))) (setSetup(null), refetch());
  };
  const disable = async (e: SubmitEvent) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget as HTMLFormElement).get('code') ?? '');
    if (await act.run('Two-factor sign-in is off', () => api().auth.mfaDisable.mutate({ code }))) refetch();
  };
  return (
    <div class="card" aria-label="Two-factor sign-in">
      <h2>Two-factor sign-in (TOTP)</h2>
      <p data-testid="mfa-state">{enabled() ? 'On' : 'Off'}</p>
      <Show when={!enabled() && !setup()}>
        <form aria-label="Enable two-factor" onSubmit={begin}>
          <label>Current password <input name="password" type="password" required /></label>
          <button type="submit" disabled={act.busy()}>Set up</button>
        </form>
      </Show>
      <Show when={setup()}>
        <img src={setup()!.qr} alt="QR code for your authenticator app" width="200" height="200" />
        <p>Or enter this key by hand: <code data-testid="mfa-secret">{setup()!.secret}</code></p>
        <form aria-label="Confirm two-factor" onSubmit={confirm}>
          <label>Code from the app <input name="code" inputmode="numeric" pattern="\d{6}" required /></label>
          <button type="submit" disabled={act.busy()}>Turn on</button>
        </form>
      </Show>
      <Show when={enabled()}>
        <form aria-label="Disable two-factor" onSubmit={disable}>
          <label>Code from the app <input name="code" inputmode="numeric" pattern="\d{6}" required /></label>
          <button type="submit" disabled={act.busy()}>Turn off</button>
        </form>
      </Show>
      <Notice message={act.message()} />
    </div>
  );
}

function KeysPanel() {
  const act = useAction();
  const [perms] = createResource(epoch, () => api().auth.permissions.query());
  // An admin's list holds everyone's keys; this page is about the caller's own.
  const [keys, { refetch }] = createResource(epoch, async () => {
    const me = (await api().auth.permissions.query()).username;
    return ((await api().keys.list.query()) as Key[]).filter((k) => !k.owner || k.owner === me);
  });
  const [created, setCreated] = createSignal<string | null>(null);
  const [secretsOf, setSecretsOf] = createSignal<Key | null>(null);
  const [problem, setProblem] = createSignal<string | null>(null);
  const create = async (e: SubmitEvent) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const expires = String(data.get('expiresAt') ?? '');
    const parsed = apiKeyCreate.safeParse({
      name: String(data.get('name') ?? ''),
      permissions: data.getAll('permissions').map(String) as Permission[],
      ...(expires ? { expiresAt: new Date(`${expires}T23:59:59Z`).toISOString() } : {}),
    });
    if (!parsed.success) return void setProblem(parsed.error.issues.map((i) => `${i.path[0] === 'permissions' ? 'Permissions' : 'Name'} ${inWords(i as never)}`).join('; '));
    setProblem(null);
    const r = (await act.run('Key created: copy it now, it is shown once', () => api().keys.create.mutate(parsed.data))) as { key?: string } | undefined;
    if (r) (setCreated(r.key ?? null), form.reset(), refetch());
  };
  const revoke = async (id: string) => {
    if (await act.run('Key revoked', () => api().keys.revoke.mutate({ id }))) refetch();
  };
  return (
    <div class="card" aria-label="API keys">
      <h2>API keys</h2>
      <table>
        <thead><tr><th>Name</th><th>Permissions</th><th>Expires</th><th /></tr></thead>
        <tbody>
          <Show when={(keys() ?? []).length === 0}><tr><td colSpan={4} class="muted">No keys yet</td></tr></Show>
          <For each={keys() ?? []}>
            {(k) => (
              <tr data-key={k.name}>
                <td>{k.name}</td>
                <td>{k.permissions.join(', ')}</td>
                <td>{k.expiresAt ? new Date(k.expiresAt).toLocaleDateString() : 'never'}</td>
                <td>
                  <button class="link" onClick={() => setSecretsOf(secretsOf()?.id === k.id ? null : k)} aria-label={`Secrets of ${k.name}`}>Secrets</button>
                  <button class="link" onClick={() => revoke(k.id)} aria-label={`Revoke ${k.name}`}>Revoke</button>
                </td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
      <form aria-label="Create API key" onSubmit={create}>
        <label>Name <input name="name" maxlength="100" /></label>
        <fieldset>
          <legend>Permissions (only those you hold)</legend>
          <For each={perms()?.permissions ?? []}>{(p) => <label class="inline"><input type="checkbox" name="permissions" value={p} /> {p}</label>}</For>
        </fieldset>
        <label>Expires on <input name="expiresAt" type="date" /></label>
        <Show when={problem()}><p class="field-error" role="alert">{problem()}</p></Show>
        <button type="submit" disabled={act.busy()}>Create key</button>
      </form>
      <Show when={secretsOf()} keyed>{(k) => <SecretsPanel keyId={k.id} keyName={k.name} />}</Show>
      <Show when={created()}><p>New key: <code data-testid="new-key">{created()}</code></p></Show>
      <Notice message={act.message()} />
    </div>
  );
}

function SignOutEverywhere() {
  const act = useAction();
  const run = async () => {
    if (!confirm('Sign out on every device, this one included?')) return;
    if (await act.run('Signed out everywhere', () => api().auth.logoutAll.mutate())) setToken(null);
  };
  return (
    <div class="card">
      <h2>Sessions</h2>
      <button onClick={run} disabled={act.busy()}>Sign out everywhere</button>
      <Notice message={act.message()} />
    </div>
  );
}
