import { createSignal, For, Show } from 'solid-js';
import { api } from '../api';
import { Notice, useAction } from '../ui';

type Prop = { type?: string | string[]; description?: string; enum?: unknown[] };

/** Calls a tool with a form made from its input schema and shows the result. */
export function TryTool(props: { server: string; tool: string; schema: unknown }) {
  const schema = (props.schema ?? {}) as { properties?: Record<string, Prop>; required?: string[] };
  const fields = Object.entries(schema.properties ?? {});
  const [values, setValues] = createSignal<Record<string, string>>({});
  const [result, setResult] = createSignal<string | null>(null);
  const action = useAction();
  const call = async (e: Event) => {
    e.preventDefault();
    const args: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(values())) if (v !== '') args[k] = v; // the server converts strings to the schema's types
    const r = await action.run('Called', () => api().tools.callTool.mutate({ server: props.server, toolName: props.tool, arguments: args }));
    if (r) setResult(JSON.stringify(r.content, null, 2));
  };
  return (
    <form class="try" onSubmit={call} aria-label={`Try ${props.tool}`}>
      <For each={fields}>
        {([name, p]) => (
          <label>
            {name}{schema.required?.includes(name) ? ' *' : ''} <span class="muted small">{String(p.type ?? '')} {p.description ?? ''}</span>
            <input name={name} value={values()[name] ?? ''} onInput={(e) => setValues({ ...values(), [name]: e.currentTarget.value })} />
          </label>
        )}
      </For>
      <button type="submit" disabled={action.busy()}>{action.busy() ? 'Calling…' : 'Call'}</button>
      <Notice message={action.message()?.ok ? null : action.message()} />
      <Show when={result()}>
        <pre class="result" data-testid="tool-result">{result()}</pre>
      </Show>
    </form>
  );
}
