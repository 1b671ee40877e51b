import { createResource, Match, Switch } from 'solid-js';
import { api, isUnauthorized, setToken, token } from './api';
import { Login } from './pages/Login';
import { Layout } from './Layout';

export function App() {
  const [publicConfig] = createResource(() => api().system.publicConfig.query());
  // A stored token is checked once; a stale one sends the user back to the login page.
  const [session] = createResource(token, async (t) => {
    try {
      return await api().auth.verify.query();
    } catch (err) {
      if (t && isUnauthorized(err)) setToken(null);
      return null;
    }
  });
  // A resource keeps its last value when its source turns null, hence the token check.
  const loggedIn = () => (Boolean(token()) && Boolean(session()?.valid)) || Boolean(publicConfig()?.skipAuth);

  return (
    <Switch fallback={<Login />}>
      <Match when={publicConfig.loading || session.loading}>
        <p class="center muted">Loading…</p>
      </Match>
      <Match when={loggedIn()}>
        <Layout user={session()?.user ?? null} />
      </Match>
    </Switch>
  );
}
