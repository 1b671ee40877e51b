import { createSignal, Show } from 'solid-js';
import { loginInput } from '@hub/contract';
import { api, errorMessage, setToken } from '../api';

export function Login() {
  const [username, setUsername] = createSignal('');
  const [password, setPassword] = createSignal('');
  const [error, setError] = createSignal<string | null>(null);
  const [busy, setBusy] = createSignal(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    // Same schema the server validates with.
    const parsed = loginInput.safeParse({ username: username(), password: password() });
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
      setError(errorMessage(err));
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
        <Show when={error()}>
          <p class="error" role="alert">{error()}</p>
        </Show>
        <button type="submit" disabled={busy()}>{busy() ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
