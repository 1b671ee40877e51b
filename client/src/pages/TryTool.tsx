import { createSignal, For, Show } from 'solid-js';
import { api } from '../api';
import { Notice, useAction } from '../ui';

type Prop = { type?: string | string[]; description?: string; enum?: unknown[] };
const kind = (p: Prop) => (Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type) ?? 'string';

/** The arguments as the schema types them, or the first problem, in words. */
function collect(fields: Array<[string, Prop]>, required: string[], values: Record<string, string>): { args: Record<string, unknown> } | { problem: string } {
  const args: Record<string, unknown> = {};
  for (const [name, p] of fields) {
    const raw = values[name] ?? '';
    if (raw === '') {
      if (required.includes(name)) return { problem: `${name}: is required` };
      continue;
    }
    const t = kind(p);
    if (t === 'number' || t === 'integer') {
      const n = Number(raw);
      if (!Number.isFinite(n) || (t === 'integer' && !Number.isInteger(n))) return { problem: `${name}: must be ${t === 'integer' ? 'a whole number' : 'a number'}` };
      args[name] = n;
    } else if (t === 'boolean') args[name] = raw === 'true';
    else if (t === 'object' || t === 'array') {
      try {
        args[name] = JSON.parse(raw);
      } catch {
        return { problem: `${name}: must be JSON (${t === 'array' ? 'a list like [1, 2]' : 'an object like {"a": 1}'})` };
      }
    } else args[name] = raw;
  }
  return { args };
}

function Input(props: { name: string; p: Prop; value: string; onInput: (v: string) => void }) {
  const t = kind(props.p);
  if (t === 'boolean') {
    return <input type="checkbox" name={props.name} checked={props.value === 'true'} onChange={(e) => props.onInput(e.currentTarget.checked ? 'true' : 'false')} />;
  }
  if (props.p.enum?.length) {
    return (
      <select name={props.name} value={props.value} onChange={(e) => props.onInput(e.currentTarget.value)}>
        <option value="">—</option>
        <For each={props.p.enum}>{(v) => <option value={String(v)}>{String(v)}</option>}</For>
      </select>
    );
  }
  if (t === 'object' || t === 'array') return <textarea name={props.name} rows={3} value={props.value} onInput={(e) => props.onInput(e.currentTarget.value)} />;
  return <input name={props.name} type={t === 'number' || t === 'integer' ? 'number' : 'text'} step={t === 'integer' ? '1' : 'any'} value={props.value} onInput={(e) => props.onInput(e.currentTarget.value)} />;
}

/** Calls a tool with a form made from its input schema and shows the result (an error result as an error). */
export function TryTool(props: { server: string; tool: string; schema: unknown }) {
  const schema = (props.schema ?? {}) as { properties?: Record<string, Prop>; required?: string[] };
  const fields = Object.entries(schema.properties ?? {});
  const [values, setValues] = createSignal<Record<string, string>>({});
  const [result, setResult] = createSignal<{ text: string; error: boolean } | null>(null);
  const action = useAction();
  const call = async (e: Event) => {
    e.preventDefault();
    setResult(null);
    const got = collect(fields, schema.required ?? [], values());
    if ('problem' in got) return action.setMessage({ ok: false, text: got.problem });
    const r = await action.run('Called', () => api().tools.callTool.mutate({ server: props.server, toolName: props.tool, arguments: got.args }));
    if (!r) return;
    const error = Boolean((r as { isError?: boolean }).isError);
    setResult({ text: JSON.stringify(r.content, null, 2), error });
    if (error) action.setMessage({ ok: false, text: 'The tool answered with an error' });
  };
  return (
    <form class="try" onSubmit={call} aria-label={`Try ${props.tool}`} novalidate>
      <For each={fields}>
        {([name, p]) => (
          <label>
            {name}{schema.required?.includes(name) ? ' *' : ''} <span class="muted small">{String(kind(p))} {p.description ?? ''}</span>
            <Input name={name} p={p} value={values()[name] ?? ''} onInput={(v) => setValues({ ...values(), [name]: v })} />
          </label>
        )}
      </For>
      <button type="submit" disabled={action.busy()}>{action.busy() ? 'Calling…' : 'Call'}</button>
      <Notice message={action.message()?.ok ? null : action.message()} />
      <Show when={result()}>
        <pre class={result()!.error ? 'result result-error' : 'result'} data-testid="tool-result">{result()!.text}</pre>
      </Show>
    </form>
  );
}

/** Gets a prompt with its arguments and shows the messages it gives. */
export function RunPrompt(props: { server: string; prompt: string; args: Array<{ name: string; description?: string; required?: boolean }> }) {
  const [values, setValues] = createSignal<Record<string, string>>({});
  const [result, setResult] = createSignal<string | null>(null);
  const action = useAction();
  const run = async (e: Event) => {
    e.preventDefault();
    const missing = props.args.find((a) => a.required && !values()[a.name]);
    if (missing) return action.setMessage({ ok: false, text: `${missing.name}: is required` });
    const r = await action.run('Done', () => api().tools.getPrompt.mutate({ server: props.server, prompt: props.prompt, arguments: values() }));
    if (r) setResult(JSON.stringify((r as { messages?: unknown }).messages ?? r, null, 2));
  };
  return (
    <form class="try" onSubmit={run} aria-label={`Run ${props.prompt}`} novalidate>
      <For each={props.args}>
        {(a) => (
          <label>
            {a.name}{a.required ? ' *' : ''} <span class="muted small">{a.description ?? ''}</span>
            <input name={a.name} value={values()[a.name] ?? ''} onInput={(e) => setValues({ ...values(), [a.name]: e.currentTarget.value })} />
          </label>
        )}
      </For>
      <button type="submit" disabled={action.busy()}>Run</button>
      <Notice message={action.message()?.ok ? null : action.message()} />
      <Show when={result()}>
        <pre class="result" data-testid="prompt-result">{result()}</pre>
      </Show>
    </form>
  );
}
