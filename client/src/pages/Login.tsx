import { createResource, createSignal, onMount, Show } from 'solid-js';
import { loginInput } from '@hub/contract';
import { api, errorMessage, setToken } from '../api';

export function Login() {
  const [username, setUsername] = createSignal('');
  const [password, setPassword] = createSignal('');
  const [error, setError] = createSignal<string | null>(null);
  const [busy, setBusy] = createSignal(false);
  const [mfaCode, setMfaCode] = createSignal('');
  const [needsMfa, setNeedsMfa] = createSignal(false);
  const [oidc] = createResource(() => api().system.publicConfig.query().then((c) => c.oidc).catch(() => undefined));

  // Back from the identity provider: a one-time ticket to trade for a session, or why it failed.
  onMount(() => {
    const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
    const ticket = params.get('oidc');
    const failed = params.get('oidc_error');
    if (!ticket && !failed) return;
    // The ticket leaves the address bar (and history) at once.
    history.replaceState(null, '', `${location.pathname}#/`);
    if (failed) return void setError(failed);
    setBusy(true);
    api()
      .oidc.exchange.mutate({ ticket: ticket! })
      .then((r) => setToken(r.token))
      .catch((err) => setError(errorMessage(err)))
      .finally(() => setBusy(false));
  });

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    // Same schema the server validates with.
    const parsed = loginInput.safeParse({ username: username(), password: password(), ...(needsMfa() ? { mfaCode: mfaCode() } : {}) });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      setError(`${issue.path.join('.')}: ${issue.message}`);
      return;
    }
    setBusy(true);
    try {
      const result = await api().auth.login.mutate(parsed.data);
      setToken(result.token);
    } catch (err) {
      const text = errorMessage(err);
      // The server asks for the second factor by naming the field.
      if (/^mfaCode:/.test(text)) setNeedsMfa(true);
      setError(text);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="center">
      <form class="card login" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Hub</h1>
        <p class="muted">Sign in to manage your MCP servers.</p>
        <label>
          Username
          <input name="username" autocomplete="username" value={username()} onInput={(e) => setUsername(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" value={password()} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        <Show when={needsMfa()}>
          <label>
            Authenticator code
            <input name="mfaCode" inputmode="numeric" autocomplete="one-time-code" maxLength={6} value={mfaCode()} onInput={(e) => setMfaCode(e.currentTarget.value)} />
          </label>
        </Show>
        <Show when={error()}>
          <p class="error" role="alert">{error()}</p>
        </Show>
        <button type="submit" disabled={busy()}>{busy() ? 'Signing in…' : 'Sign in'}</button>
        <Show when={oidc()?.enabled}>
          <a class="button secondary" href="/auth/oidc/login">Sign in with {oidc()!.buttonLabel}</a>
        </Show>
      </form>
    </main>
  );
}
